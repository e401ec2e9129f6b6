package toolscan

import (
	"regexp"
	"strings"
	"sync"
)

// lazyRegexp is a regular expression compiled the first time it is used.
// The scanner's patterns took 14 ms and 2 MB to compile, which every
// plughost command paid at start-up though only a tool scan uses them.
type lazyRegexp func() *regexp.Regexp

// lazy returns expr as a lazyRegexp; expr must compile.
func lazy(expr string) lazyRegexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// pattern is a regular expression tried only when its keys occur in the
// text: most text holds none, and a few substring searches cost far less
// than a regular expression with many branches.
type pattern struct {
	keys [][]string // every group needs one of its words (lower case)
	re   lazyRegexp
}

// pat makes re (case-insensitive) a pattern with keys: groups separated by
// " & ", each a list of words or phrases separated by "," of which one
// must occur.
func pat(keys string, re string) pattern {
	var groups [][]string
	for _, g := range strings.Split(keys, " & ") {
		groups = append(groups, strings.Split(g, ","))
	}
	return pattern{keys: groups, re: lazy(`(?i)` + re)}
}

// find returns the first match of p in s (lower is s in lower case), or nil.
func (p pattern) find(s, lower string) []int {
	for _, g := range p.keys {
		if !containsAny(lower, g) {
			return nil
		}
	}
	return p.re().FindStringIndex(s)
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func findAny(ps []pattern, s, lower string) []int {
	for _, p := range ps {
		if loc := p.find(s, lower); loc != nil {
			return loc
		}
	}
	return nil
}

// instructionPatterns are imperatives aimed at the model rather than
// documentation for it. Each is phrased so that how-to text ("call
// list_projects first", "the path must be absolute") does not match: they
// need a fake authority tag, an override of earlier instructions, secrecy
// towards the user, or rules for other tools.
var instructionPatterns = []pattern{
	// <IMPORTANT>, <SYSTEM>, </instructions> … (Invariant Labs' tags).
	pat(`< & important,system,instruction,hidden,secret,admin,critical,urgent,assistant,note`, `<\s*/?\s*(important|system|system[_ -]?(prompt|message)|instructions?|hidden|secret|admin|critical|urgent|assistant[_ -]?instructions?|ai[_ -]?instructions?|note[_ -]?(to|for)[_ -]?(the[_ -]?)?(ai|assistant|model|llm|agent))\s*>`),
	pat(`[ & important,system,hidden,instruction,admin,critical,secret`, `\[\s*(important|system|hidden|instructions?|admin|critical|secret)\s*(:|\])`),
	// ignore / disregard / forget previous instructions.
	pat(`ignore,disregard,forget,override,bypass & previous,prior,above,earlier,preceding,existing,original,system,other`, `\b(ignore|disregard|forget|override|bypass)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+|my\s+)?(previous|prior|above|earlier|preceding|existing|original|system|other)\s+(instructions?|prompts?|rules|directions|directives|guidelines|guidance|context|messages|constraints)`),
	// Secrecy towards the user.
	pat(`not,n't,never & user,human,person,operator`, `\b(do\s+not|don'?t|never|must\s+not|should\s+not|shouldn'?t|mustn'?t)\s+(tell|inform|mention|reveal|disclose|notify|alert|show|let|warn|bother)\b[^.\n]{0,40}?\b(the\s+)?(users?|humans?|person|operator)\b`),
	pat(`mention,reveal,disclose,explain,acknowledge & not,n't,never`, `\b(do\s+not|don'?t|never)\s+(mention|reveal|disclose|explain|acknowledge)\s+(this|these|it|that|any\s+of\s+this|the\s+(above|following|instructions?|note))\b`),
	pat(`without & user`, `\bwithout\s+(telling|informing|notifying|alerting|asking|warning|bothering)\s+(the\s+)?users?\b`),
	pat(`from the user`, `\b(hide|conceal|keep)\b[^.\n]{0,40}?\bfrom\s+the\s+users?\b`),
	pat(`not,n't & user,human`, `\b(the\s+)?(user|human)\s+(must|should|need|does)\s*(not|n'?t)\s+(know|see|notice|find\s+out|be\s+(told|informed|aware|notified))`),
	pat(`implementation detail`, `\bmere\s+implementation\s+detail|\bimplementation\s+detail\b[^.\n]{0,40}\b(user|them)\b`),
	pat(`silently,secretly,covertly,quietly,discreetly,invisibly`, `\b(silently|secretly|covertly|quietly|discreetly|invisibly)\s+(also\s+)?(read|send|include|call|forward|upload|copy|execute|run|add|append|attach|pass|collect|exfiltrate|cc|bcc|email|post|transmit|change|replace|redirect|rewrite|modify|alter|edit|delete|remove|approve|install|store|save|log)\b`),
	// Line jumping: rules for every other tool or for the whole session.
	pat(`before & any,every,all,each,other,another,anything`, `\bbefore\s+(using|calling|invoking|executing|running|responding|answering|replying|doing)\s+(to\s+)?(any|every|all|each|other|another|anything)\b`),
	pat(`this tool is`, `\b(when|whenever|while|if|once|as\s+long\s+as)\s+this\s+tool\s+is\s+(available|present|loaded|installed|connected|enabled|listed|active)`),
	pat(`side effect,side-effect`, `\b(important|hidden|additional)\s+side[\s-]effects?\s+(on|for)\b`),
	pat(`other tool`, `\b(all|every|any)\s+other\s+tools?\b[^.\n]{0,60}\b(must|should|need|shall|will)\b`),
	pat(`change,replace,set,redirect,override,modify,alter,switch & recipient,destination,receiver,behavior,behaviour,address`, `\b(change|replace|set|redirect|override|modify|alter|switch)\s+(the\s+|its\s+|their\s+)?(recipient|destination|receiver|to[\s-]address|target\s+address|behaviou?r)s?\s+(of|to|for|when|in)\b`),
	pat(`if you & violate,ignore,follow,skip`, `\bif\s+you\s+(violate|ignore|don'?t\s+follow|do\s+not\s+follow|fail\s+to\s+follow|skip)\b`),
	pat(`you are now,from now on`, `\byou\s+are\s+now\s+(a|an|in|the)\b|\bfrom\s+now\s+on\b`),
	pat(`instruction & :`, `\b(new|updated|real|actual|true)\s+instructions?\s*:`),
	pat(`system prompt,hidden prompt,initial instructions,developer message & reveal,print,output,repeat,leak,show,include,send,paste,provide,copy,dump,give`, `\b(reveal|print|output|repeat|leak|show|include|send|paste|provide|copy|dump|give)\s+(your|the)\s+(full\s+|complete\s+|entire\s+|whole\s+)?(system\s+prompt|hidden\s+prompt|initial\s+instructions|developer\s+message)`),
	// Authority preambles addressed to the model: a heading ("Note to the
	// AI:"), not a noun phrase ("instructions for the AI on what to extract"
	// describes an LLM tool's parameter).
	pat(`ai,assistant,model,llm,agent,claude,gpt,copilot & :,!, -,–,—`, `\b(attention|note|message|instructions?|reminder|warning|notice|hint|tip)\s+(to|for)\s+(the\s+|all\s+)?(ai|assistant|model|llm|agent|claude|gpt|chatgpt|copilot)s?(\s+(model|agent|assistant)s?)?\s*([:!]|\s[-–—]\s)|\battention\s+(ai|assistant|model|llm|agent)s?\b|(^|\n)\s*(assistant|ai|model|agent|llm)\s*:\s*\w`),
	pat(`override,mode,notice,instruction & :`, `\b(system|admin|administrator|developer|security|root)\s+(override|mode|notice|instructions?)\s*:`),
	pat(`authori`, `\b(is|are|has\s+been|have\s+been)\s+(now\s+)?(authori[sz]ed|permitted|allowed|granted\s+permission)\s+to\s+(run|execute|delete|read|access|send|call|use)\s+(any|all|every|arbitrary)\b`),
	pat(`without & user`, `\bwithout\s+(the\s+)?user'?s?\s+(approval|consent|permission|knowledge|confirmation|awareness)`),
	pat(`user & ignore,disregard,forget`, `\b(ignore|disregard|forget)\s+(whatever|what|anything|everything|all)\s+(that\s+)?(the\s+)?user\b|\b(ignore|disregard)\s+(the\s+)?user'?s?\s+(request|instructions?|question|input|wishes|choice)`),
	pat(`user & respond,reply,answer,say,tell,claim`, `\b(whenever|when|if)\s+the\s+user\s+(asks|mentions|says|requests|wants|talks)\b[^.\n]{0,80}?\b(respond|reply|answer|say|tell\s+them|claim)\s+(that|with)\b`),
	pat(`tool & full,entire,whole,complete,all`, `\b(invoke|call|use|run)\s+(the\s+)?[\x60'"]?\w+[\x60'"]?\s+tool\s+with\s+(the\s+)?(full|entire|whole|complete|all)\b`),
	// Chat-template and placeholder markers that pose as the system turn.
	pat(`{{,[[,<<,<|`, `\{\{\s*(system|important|instructions?|admin|sys)\s*\}\}|\[\[\s*(system|important|instructions?|admin)\s*\]\]|<<\s*/?sys\s*>>|<\|\s*(im_start|im_end|system|assistant|start_header_id)\s*\|>`),
	pat(`override,bypass,disable,ignore,turn off,circumvent & safety,security,content,usage`, `\b(override|bypass|disable|ignore|turn\s+off|circumvent)\s+(all\s+|any\s+|your\s+|the\s+)?(safety|security|content|usage)\s+(policies|policy|rules|guidelines|filters?|checks?|restrictions|measures)\b`),
	pat(`work for,act for,behalf,automatically`, `\byou\s+(now\s+)?(work|act|operate)\s+(for|on\s+behalf\s+of)\b|\b(be|are|is)\s+(approved|accepted|executed|confirmed)\s+automatically\b`),
	pat(`without & must,should,always,then`, `\b(must|should|always|then)\b[^.\n]{0,80}\bwithout\s+(asking|confirmation|confirming|approval|prompting|checking)\b`),
	pat(`confirmation,permission,approval,consent & not,n't,never,no need`, `\b(do\s+not|don'?t|never|no\s+need\s+to)\s+(ask|wait|request|seek)\s+(the\s+user\s+)?(for\s+)?(any\s+)?(confirmation|permission|approval|consent)`),
}

// secretPath is a sensitive file a tool has no business mentioning unless
// its name says it works in that domain (an SSH tool may name ~/.ssh; a
// calculator may not).
type secretPath struct {
	pattern
	domain lazyRegexp // matched against the tool's name
}

var secretPaths = []secretPath{
	{pat(`.ssh`, `(^|[^\w.])(~/|\$home/|%userprofile%\\)?\.ssh\b`), lazy(`(?i)ssh|sftp|scp|remote|key`)},
	{pat(`rsa,dsa,ed25519`, `(^|[^a-z0-9])id[_ ](rsa|dsa|ecdsa|ed25519)\b`), lazy(`(?i)ssh|sftp|scp|remote|key`)},
	{pat(`.aws,aws/`, `(^|[^\w.])(~/)?\.aws(/|\b)|\baws/(credentials|config)\b`), lazy(`(?i)aws|s3|profile`)},
	{pat(`mcp.json,mcp_config,claude_desktop,.cursor,.claude.json`, `\bmcp\.json\b|\bmcp_config\.json\b|\bclaude_desktop_config\.json\b|\.cursor/|\.claude\.json\b`), lazy(`(?i)mcp|cursor|claude|config`)},
	{pat(`.env`, `(^|[\s'"\x60(/~=\[,])\.env(\.(local|production|prod|development|dev|test|staging))?\b`), lazy(`(?i)env|secret|config`)},
	{pat(`/etc/`, `/etc/(passwd|shadow|sudoers|master\.passwd)\b`), nil},
	{pat(`.netrc,.npmrc,.pypirc,.git-credentials,.pgpass,.docker/config,.kube/config,.gnupg,_history,wallet.dat,gcloud,keychain,.vault-token,gh/hosts,.azure/,.terraform.d`,
		`(^|[^\w.])\.(netrc|npmrc|pypirc|git-credentials|pgpass|gnupg|bash_history|zsh_history|vault-token)\b|\.docker/config\.json|\.kube/config\b|\bwallet\.dat\b|\.config/(gcloud|gh/hosts\.yml)\b|\.azure/|\.terraform\.d/credentials|application_default_credentials\.json|\blogin\.keychain`),
		lazy(`(?i)npm|pypi|git|docker|kube|k8s|gpg|postgres|pg|gcloud|gcp|shell|history|wallet|vault|azure|terraform`)},
}

// secretTransfer is a request to pass the user's secrets along: a verb
// that moves data and a secret qualified as someone's or all of them, so
// "the pagination token" or "your API key for the service" stay quiet.
var secretTransfer = pat(`key,token,credential,secret,password,passphrase,cookie,environment,env var,seed,mnemonic,phrase & all,every,each,user,their,any,stored,saved,local,cached,available,existing`,
	`\b(include|including|contain|containing|embed|attach|append|pass|send|forward|upload|leak|paste|insert|exfiltrate|steal|harvest|dump|put|add|copy|read|collect|gather)\b[^.\n]{0,50}?\b(all|every|each|the\s+user'?s|users'|their|any|stored|saved|local|cached|available|existing)\s+(of\s+the\s+|of\s+their\s+|of\s+the\s+user'?s\s+)?([\w-]+\s+)?(api[\s_-]?keys?|access[\s_-]?keys?|secret[\s_-]?keys?|credentials?|secrets|passwords?|passphrases?|private[\s_-]?keys?|ssh[\s_-]?keys?|(auth|authentication|access|bearer|session|refresh)\s+tokens?|tokens|session\s+cookies|cookies|environment\s+variables|env\s+vars?|seed\s+phrases?|mnemonics?|recovery\s+phrases?)\b`)

// secretEnvValue asks for the value of a secret environment variable
// (OPENAI_API_KEY) to be put somewhere; naming the variable a server reads
// its own key from ("requires GITHUB_TOKEN") is not this.
var secretEnvValue = pat(`value,content & key,token,secret,password`, `\b(contain|contains|include|includes|including|pass|send|put|attach|append|add|insert|paste|copy)\s+(the\s+)?(value|contents?)\s+of\s+(the\s+)?\$?[A-Z][A-Z0-9_]*(KEY|TOKEN|SECRET|PASSWORD)\b`)

// secretName is a property name that says it holds a secret read from
// somewhere (CyberArk's content_from_reading_ssh_id_rsa), once split into
// words.
var secretName = pat(`content,read,dump,copy`, `\b(contents?|read|reading|dump|copy|copied)\b[\w ]*\b(ssh|rsa|private key|credentials?|passwords?|secrets?|api key|env|dotenv|mcp|cookies?|keychain)\b`)

// exfilPatterns send data out without naming a URL, or with a command.
var exfilPatterns = []pattern{
	pat(`curl,wget,invoke-webrequest,iwr`, `\b(curl|wget|invoke-webrequest|iwr)\b[^\n]{0,120}?(\s-d\b|--data|\s-F\b|--form|\s-T\b|--upload-file|--post-data|--post-file|-X\s*POST)`),
	pat(`send,upload,post,forward,transmit,exfiltrate,report,mirror,sync & server,endpoint,webhook,host,collector,service,address,inbox`, `\b(send|upload|post|forward|transmit|exfiltrate|report|mirror|sync)\s+(it|them|this|everything|a\s+copy|copies|all|the\s+(full\s+|entire\s+|raw\s+)?(contents?|data|files?|results?|output|conversation|history|messages|chat|keys?|secrets?|credentials|logs?))\b[^.\n]{0,40}?\bto\s+(our|my|an?|the|this)\s+(own\s+)?(external|remote|collection|logging|analytics|backup|third[\s-]party|attacker)?\s*(server|endpoint|webhook|host|collector|service|address|inbox)\b`),
	pat(`cc,bcc,forward,send,copy,redirect,route & @`, `\b(bcc|cc|forward|send|copy|redirect|route)\b[^.\n]{0,60}?\b(all|every|each|a\s+copy|also|always|additionally|silently)\b[^.\n]{0,60}?[\w.+-]+@([\w-]+\.)+[a-z]{2,}\b`),
	pat(`append,add,attach,include & user,their,personal,private & url,link,query,request`, `\b(append|add|attach|include)\b[^.\n]{0,60}\b(user'?s?|their|personal|private)\b[^.\n]{0,60}\bto\s+(the\s+|every\s+|each\s+|all\s+)?(url|link|query|request)s?\b`),
	pat(`route,redirect,forward,send,copy & through,via,to & 0,1,2,3,4,5,6,7,8,9`, `\b(route|redirect|forward|send|copy)\b[^.\n]{0,40}\b(through|via|to)\s+\+?\d[\d\s().-]{7,}\d`),
	pat(`recipient,destination,cc & +`, `\+\d[\d\s().-]{6,}\d\s+(to|as|in)\s+(the\s+)?(recipients?|destination|cc|bcc)\b`),
	pat(`recipient,destination,receiver,number & 0,1,2,3,4,5,6,7,8,9`, `\b(recipient|destination|receiver|phone\s+number|number)\b[^.\n]{0,40}?\b(to|as|is|be)\s+\+?\d[\d\s().-]{7,}\d`),
}

// emailTo is an address data is sent to; exfiltration skips the
// reserved example domains.
var emailTo = pat(`@ & send,email,mail,forward,cc,copy,deliver,report`, `\b(send|email|e-mail|mail|forward|cc|bcc|copy|deliver|report)\b[^.\n]{0,60}?\bto\s+[\w.+-]+@(([\w-]+\.)+[a-z]{2,})\b`)

// exfilVerb ends the text just before a URL that data is sent to.
var exfilVerb = lazy(`(?i)\b(send|post|upload|forward|transmit|submit|exfiltrate|leak|beacon|mirror|deliver|push|report|ping|log|copy|sync|request|call|fetch|load|visit|open)\b[^\n]{0,80}\b(to|at|into)\s*(the\s+)?(url|endpoint|address|server|webhook|host|collector)?\s*[:(<\[\x60'"]*\s*$`)

var urlRe = lazy(`(?i)\b(https?|wss?|ftp)://[^\s<>"'\x60)\]]+`)

// catcherHosts receive requests for whoever set them up: a description
// has no reason to name one.
var catcherHosts = []string{"webhook.site", "requestbin", "pipedream.net", "ngrok.io", "ngrok-free.app", "ngrok.app",
	"burpcollaborator", "interact.sh", "oastify.com", "oast.", "canarytokens", "pastebin.com", "hookbin", "beeceptor",
	"requestcatcher", "postb.in", "webhook-test", "trycloudflare.com"}

// placeholderQuery is a query that carries data: a value left for the
// model to fill ({…}, <…>, ${…}, [...]).
// An upper-case name with an underscore (USER_EMAIL, API_KEY) is one too.
var placeholderQuery = lazy(`[?&][\w.-]+=(\{|%7[bB]|<|%3[cC]|\$\{|\[|\$[A-Za-z_]|[A-Z][A-Z0-9]*_[A-Z0-9_]+\b)`)
