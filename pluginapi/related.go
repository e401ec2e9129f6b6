package pluginapi

// RelatedRequestMetaKey is the _meta key by which a transport tells the host
// which of the host's requests a server→client request belongs to, when the
// transport knows it: a streamable-HTTP server sends a request made while
// handling one of the host's on that request's response stream. The
// transport adds it to the params' _meta of the server's request (creating
// _meta when absent), its value the host's request id as the host sent it;
// the host removes it (and an _meta left empty) before relaying the request
// to a client. It lets the host tell apart the clients of concurrent calls
// to the same server. Optional: without it the host relies on its other
// rules.
const RelatedRequestMetaKey = "dev.plughost/related-request"
