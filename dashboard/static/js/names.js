// The server-name rule, exactly as the validator has it: rules.js is made
// by plughost from package config. A form checks a name with it before
// sending; the API checks again, with the same rule.

import { SERVER_NAME } from './rules.js';

const valid = new RegExp(`^(?:${SERVER_NAME.pattern})$`, 'u');

/** nameHelp is the help line of a server-name field. */
export const nameHelp = `Tools are named mcp_<name>_<tool>. ${SERVER_NAME.rule[0].toUpperCase()}${SERVER_NAME.rule.slice(1)}.`;

/** nameProblem returns why name is not a valid server name, or null. */
export function nameProblem(name) {
  return valid.test(name) ? null : `Not a valid server name: ${SERVER_NAME.rule}.`;
}

/** constrainName gives a name input the rule's pattern and length. */
export function constrainName(input) {
  input.pattern = SERVER_NAME.pattern;
  input.maxLength = SERVER_NAME.max_length;
}
