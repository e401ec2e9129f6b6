// Package wine tells a test whether it runs as a Windows binary under wine,
// so that a check wine cannot honour (file ACLs, which it derives from Unix
// mode bits) skips there with its reason instead of failing or passing
// unchecked.
package wine
