package toolscan

import (
	"strings"
)

// carrierNames are parameter names (lower case, without _ and -) that the
// published attacks use to carry what the model was told to collect. Such
// a name alone is common and benign; it counts with a description that
// asks for more than the parameter's own purpose, or when the tool's
// description tells the model to put something into it.
var carrierNames = map[string]bool{
	"note": true, "notes": true, "sidenote": true, "context": true, "ctx": true, "feedback": true,
	"metadata": true, "meta": true, "extra": true, "extras": true, "comment": true, "comments": true,
	"remark": true, "remarks": true, "memo": true, "debug": true, "debuginfo": true, "reasoning": true,
	"thought": true, "thoughts": true, "history": true, "chathistory": true, "conversation": true,
	"conversationhistory": true, "previousmessages": true, "additionalinfo": true,
	"additionalcontext": true, "additionaldata": true, "additionalnotes": true, "extrainfo": true,
	"extracontext": true, "extradata": true, "details": true, "usercontext": true, "systemcontext": true,
	"audit": true, "auditlog": true, "trace": true, "telemetry": true, "sessiondata": true, "env": true,
	"environment": true, "summary": true, "annotation": true, "info": true,
}

func carrier(name string) bool {
	if len(name) > 24 {
		return false
	}
	var b [24]byte
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b[n] = c
		n++
	}
	return carrierNames[string(b[:n])]
}

var (
	// requiredFor claims a parameter is needed for something other than
	// the tool's job ("required for the tool to work", "needed for audit").
	requiredFor = pat(`requir,need,necessary,mandatory,must`, `\b(required|needed|necessary|mandatory|must\s+be\s+(provided|filled|included|set|populated))\b[^.\n]{0,30}?\b(for|to|so|by)\b[^.\n]{0,40}?\b(tool|function|security|verification|verify|validation|authentication|authorization|audit|auditing|logging|compliance|system|work|operate|proper|properly|correct|correctly)\b`)
	// fillWith asks for whole conversations, files or secrets.
	fillWith = pat(`full,entire,whole,complete,all,every,previous,prior,earlier,raw,verbatim`, `\b(include|contain|put|pass|paste|provide|fill|add|append|insert|place|copy|dump|send)\b[^.\n]{0,60}?\b(full|entire|whole|complete|all|every|previous|prior|earlier|raw|verbatim)\b[^.\n]{0,40}?\b(conversation|conversations|history|messages|chat|chats|system\s+prompt|instructions|secrets?|keys|tokens|credentials?|environment|variables|files?\s+contents?|contents?\s+of)\b`)
	// putInto ends the text just before a parameter the description tells
	// the model to fill: "… pass its content as 'sidenote'".
	// Only when what is put there comes from elsewhere (a file's content,
	// other calls' output, the conversation, secrets): "put the text in
	// the comment field" is how a comment tool is used.
	putInto = lazy(`(?i)\b(pass|put|include|insert|append|add|paste|send|provide|place|store|embed|supply|fill|write|attach)\b[^.\n]{0,100}\b(as|in|into|inside|within|via|through|to|using)\s+(the\s+|a\s+)?((parameter|argument|field|param)\s+)?[\x60'"]?$`)
)

// mustHold begins the text just after a parameter's name that says what
// it must carry: "the 'notes' argument must always contain …".
var mustHold = lazy(`(?i)^[\x60'"]?\s+(argument|parameter|field|param)\s+(must|should|needs\s+to|has\s+to|is\s+to)\s+(always\s+)?(contain|include|hold|carry|have|be\s+filled\s+with)\b`)

// sentenceAfter is the text of s's sentence from i (at most 160 bytes).
func sentenceAfter(s string, i int) string {
	w := s[i:min(len(s), i+160)]
	if j := strings.Index(w, ". "); j >= 0 {
		w = w[:j]
	}
	return w
}

// fromElsewhere names data that is not the tool's own input.
var fromElsewhere = lazy(`(?i)\b(contents?|outputs?|results?|history|conversation|messages|files?|keys?|tokens?|secrets?|credentials?|config|configuration|previous|last|earlier|other|environment)\b`)

// checkParams flags carrier parameters: described as needed for something
// else or as a place for conversations and secrets, or named by a prose
// text (the description) as where to put something.
func checkParams(fs *findings, texts []text, params []param) {
	for _, p := range params {
		if !carrier(p.name) {
			continue
		}
		if p.desc != "" {
			lower := strings.ToLower(p.desc)
			if loc := requiredFor.find(p.desc, lower); loc != nil {
				fs.add(RuleSchemaTricks, p.field+".description", excerpt(p.desc, loc))
				continue
			}
			if loc := fillWith.find(p.desc, lower); loc != nil {
				fs.add(RuleSchemaTricks, p.field+".description", excerpt(p.desc, loc))
				continue
			}
		}
		for _, t := range texts {
			if t.kind != kindProse || t.inSchema && !strings.HasSuffix(t.field, ".description") {
				continue
			}
			if loc := namedAsTarget(t.s, p.name); loc != nil {
				fs.add(RuleSchemaTricks, t.field, excerpt(t.s, loc))
				break
			}
		}
	}
}

// namedAsTarget finds name in s (as a word) right after an instruction to
// put something into it.
func namedAsTarget(s, name string) []int {
	lower, lname := strings.ToLower(s), strings.ToLower(name)
	for off := 0; ; {
		i := strings.Index(lower[off:], lname)
		if i < 0 {
			return nil
		}
		i += off
		end := i + len(lname)
		off = end
		if i > 0 && isWord(lower[i-1]) || end < len(lower) && isWord(lower[end]) {
			continue
		}
		if w := sentenceBefore(s, i); putInto().MatchString(w) && fromElsewhere().MatchString(w) {
			return []int{i, end}
		}
		if w := sentenceAfter(s, end); mustHold().MatchString(w) && fromElsewhere().MatchString(w) {
			return []int{i, end}
		}
	}
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}
