// Package dashboard is plughost's web dashboard: a static page (HTML, CSS
// and JavaScript modules embedded in the binary, no build step, nothing
// loaded from elsewhere) that drives the JSON API under /api, and the
// login-code exchange that hands the page its bearer token without the
// token ever sitting in a URL.
//
// serve mounts three things through the front door:
//   - the assets at / (public: they hold no data),
//   - POST /dashboard/session (public: exchanges a one-time code for the
//     token, same-origin only),
//   - POST /dashboard/login-codes (behind the token: `plughost dashboard`
//     asks for a code there).
//
// Every rule the page applies (validation, masking, config edits) is the
// core's, reached through the API; the dashboard has none of its own.
package dashboard
