package dashboard

import (
	"encoding/json"

	"github.com/plughost/plughost/config"
)

// RulesPath is the JavaScript module that hands the page the validator's
// rules the forms check before sending (the server-name rule), made from
// package config itself so that the page and the validator cannot disagree.
const RulesPath = "/js/rules.js"

// rulesModule is the module served at RulesPath.
func rulesModule() []byte {
	rule, _ := json.Marshal(map[string]any{ // strings and an int always encode
		"pattern": config.ServerNamePattern, "max_length": config.ServerNameMaxLen, "rule": config.ServerNameRule,
	})
	return []byte("// The validator's rules (package config), served by plughost.\nexport const SERVER_NAME = " + string(rule) + ";\n")
}
