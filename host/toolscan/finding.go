package toolscan

// Finding is one rule a tool definition breaks.
type Finding struct {
	// Rule is one of the Rule* constants.
	Rule string `json:"rule"`
	// Field is where the text sits: "description", "name",
	// "annotations.title", "inputSchema.properties.note.description" …
	Field string `json:"field"`
	// Excerpt is the offending text, at most about 120 characters, with
	// invisible and bidirectional characters written as <U+200B> etc.
	Excerpt string `json:"excerpt"`
}

// The rules a definition is checked against.
const (
	// RuleInstructions flags imperatives aimed at the model: about other
	// tools, "ignore previous", "do not tell the user", <IMPORTANT> tags.
	RuleInstructions = "model-instructions"
	// RuleSecrets flags references to secrets and sensitive paths (~/.ssh,
	// id_rsa, .env, ~/.aws, mcp.json) and requests to pass credentials along.
	RuleSecrets = "secret-access"
	// RuleExfiltration flags text that sends data to an outside host: "send …
	// to https://…", URLs whose query carries a placeholder for data,
	// request-catcher hosts, curl uploads, copies of messages to an address.
	RuleExfiltration = "exfiltration"
	// RuleHiddenText flags text a person does not see: zero-width, bidi, tag
	// and control characters, HTML comments, base64 or hex that decodes to
	// text, padding and very long descriptions.
	RuleHiddenText = "hidden-text"
	// RuleSchemaTricks flags parameters meant to carry secrets or context
	// (note, context, sidenote, feedback … described as "required for …" or
	// named by the description as where to put something), and schema text
	// (parameter descriptions, defaults, output schemas) that carries
	// instructions, secrets or exfiltration.
	RuleSchemaTricks = "schema-smuggling"
)

// RuleInfo names a rule and says in one line what it catches.
type RuleInfo struct {
	// Name is one of the Rule* constants.
	Name string `json:"name"`
	// Summary is a one-line explanation for help text and docs.
	Summary string `json:"summary"`
}

// Rules returns every rule with a one-line explanation, in the order Scan
// reports them for one field.
func Rules() []RuleInfo {
	return []RuleInfo{
		{RuleInstructions, `instructions aimed at the model: "ignore previous …", "do not tell the user", <IMPORTANT> tags, rules for other tools, "before using any tool …"`},
		{RuleSecrets, "sensitive files and secrets: ~/.ssh, id_rsa, .env, ~/.aws, mcp.json, /etc/passwd, or passing the user's keys, tokens, passwords along"},
		{RuleExfiltration, `sending data out: "send/upload … to https://…", URLs with a data placeholder in the query, request-catcher hosts, curl uploads, copies of messages to an address or number`},
		{RuleHiddenText, "text a person does not see: zero-width, bidi, tag and control (ANSI escape) characters, HTML comments, base64/hex that decodes to text, padding, very long descriptions"},
		{RuleSchemaTricks, "parameters such as note, context, sidenote, feedback meant to carry secrets or context, and parameter or output-schema text that carries instructions"},
	}
}

// ruleRank orders findings of one field as Rules lists the rules.
func ruleRank(rule string) int {
	switch rule {
	case RuleInstructions:
		return 0
	case RuleSecrets:
		return 1
	case RuleExfiltration:
		return 2
	case RuleHiddenText:
		return 3
	default:
		return 4
	}
}
