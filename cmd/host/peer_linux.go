package main

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// errNoPeer means a connection's other end was not found among the
// machine's sockets.
var errNoPeer = errors.New("the connection's other end is not a socket of this machine")

// tcpEstablished is the state column of an established socket in
// /proc/net/tcp.
const tcpEstablished = "01"

// ownConn reports whether the other end of a loopback TCP connection is a
// socket of this user: the kernel's socket table (/proc/net/tcp) names the
// owner of each socket. Unknown is no.
func ownConn(c net.Conn) bool {
	uid, err := peerUID(c)
	return err == nil && uid == os.Getuid()
}

// peerUID finds the owner of the socket at the other end of c, an IPv4
// connection on this machine.
func peerUID(c net.Conn) (int, error) {
	local, err1 := netip.ParseAddrPort(c.LocalAddr().String())
	remote, err2 := netip.ParseAddrPort(c.RemoteAddr().String())
	if err1 != nil || err2 != nil || !local.Addr().Is4() || !remote.Addr().Is4() {
		return 0, fmt.Errorf("%s ↔ %s: %w", c.LocalAddr(), c.RemoteAddr(), errNoPeer)
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, fmt.Errorf("read the socket table: %w", err)
	}
	defer f.Close()
	// The peer's socket has our ends the other way round, and is
	// established (a closed socket of the same ends, in TIME_WAIT, has no
	// owner left: uid 0).
	wantLocal, wantRemote := procAddr(remote), procAddr(local)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 7 && fields[1] == wantLocal && fields[2] == wantRemote && fields[3] == tcpEstablished {
			return strconv.Atoi(fields[7])
		}
	}
	return 0, fmt.Errorf("%s: %w", c.RemoteAddr(), errNoPeer)
}

// procAddr writes an IPv4 address and port as /proc/net/tcp does: the
// address as a host-order 32-bit word in hex, a colon, the port in hex.
func procAddr(ap netip.AddrPort) string {
	a := ap.Addr().As4()
	word := make([]byte, 4)
	binary.NativeEndian.PutUint32(word, binary.BigEndian.Uint32(a[:]))
	return strings.ToUpper(hex.EncodeToString(word)) + fmt.Sprintf(":%04X", ap.Port())
}
