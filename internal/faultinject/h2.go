package faultinject

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// H2Action is what an H2Server does with one request (stream): reset it
// with RST_STREAM PROTOCOL_ERROR once the whole request is read, or response
// it.
type H2Action struct {
	status int // 0: reset
	body   string
}

// H2Reset resets the stream with PROTOCOL_ERROR after reading the request,
// as a server or load balancer that dislikes it does.
func H2Reset() H2Action { return H2Action{} }

// H2Respond responds with status with a JSON body.
func H2Respond(status int, body string) H2Action {
	return H2Action{status: status, body: body}
}

// H2Stream is one request an H2Server received.
type H2Stream struct {
	ID   uint32
	Body []byte // the DATA of the stream
}

// H2Server is a raw HTTP/2 server over TLS on loopback (ALPN h2), written
// frame by frame: it speaks just enough of the protocol (preface, SETTINGS
// and their ACK, PING, HEADERS, DATA, RST_STREAM) to record
// every request and respond to each one with the next action of its script
// (the last action repeats). It never decodes the request headers.
type H2Server struct {
	URL string

	ln     net.Listener
	certs  *x509.CertPool
	script []H2Action

	mu      sync.Mutex
	streams []H2Stream
	conns   map[net.Conn]bool
	closed  bool
	wg      sync.WaitGroup
}

// NewH2Server starts a server responding with script (H2Reset when empty).
func NewH2Server(script ...H2Action) *H2Server {
	if len(script) == 0 {
		script = []H2Action{H2Reset()}
	}
	cert, pool := selfSigned()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{"h2"},
	})
	if err != nil {
		panic("faultinject: " + err.Error())
	}
	s := &H2Server{URL: "https://" + ln.Addr().String(), ln: ln, certs: pool, script: script, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s
}

// Transport is an HTTP/2-capable transport that trusts the server's
// certificate; it dials nothing else.
func (s *H2Server) Transport() *http.Transport {
	return &http.Transport{TLSClientConfig: s.TLSConfig(), ForceAttemptHTTP2: true}
}

// TLSConfig trusts the server's certificate.
func (s *H2Server) TLSConfig() *tls.Config { return &tls.Config{RootCAs: s.certs} }

// Streams returns the requests received so far.
func (s *H2Server) Streams() []H2Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]H2Stream(nil), s.streams...)
}

// Close stops the server and closes its connections.
func (s *H2Server) Close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	_ = s.ln.Close()
	s.wg.Wait()
}

func (s *H2Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.serveConn(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			_ = c.Close()
		}()
	}
}

// Frame types and flags of RFC 9113.
const (
	frameData      = 0x0
	frameHeaders   = 0x1
	frameRSTStream = 0x3
	frameSettings  = 0x4
	framePing      = 0x6
	frameGoAway    = 0x7

	flagEndStream  = 0x1
	flagAck        = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8

	errCodeProtocol = 0x1
)

const clientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

func (s *H2Server) serveConn(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(c)
	preface := make([]byte, len(clientPreface))
	if _, err := io.ReadFull(r, preface); err != nil || string(preface) != clientPreface {
		return
	}
	w := &frameWriter{w: c}
	w.frame(frameSettings, 0, 0, nil)
	bodies := map[uint32][]byte{}
	for {
		typ, flags, id, payload, err := readFrame(r)
		if err != nil {
			return
		}
		switch typ {
		case frameSettings:
			if flags&flagAck == 0 {
				w.frame(frameSettings, flagAck, 0, nil)
			}
		case framePing:
			if flags&flagAck == 0 {
				w.frame(framePing, flagAck, 0, payload)
			}
		case frameHeaders: // and maybe CONTINUATION frames, not read: a request's headers fit one frame
			bodies[id] = []byte{}
			if flags&flagEndStream != 0 {
				s.finish(w, id, bodies)
			}
		case frameData:
			if flags&flagPadded != 0 && len(payload) > 0 {
				pad := int(payload[0])
				if pad >= len(payload) {
					return
				}
				payload = payload[1 : len(payload)-pad]
			}
			bodies[id] = append(bodies[id], payload...)
			if flags&flagEndStream != 0 {
				s.finish(w, id, bodies)
			}
		case frameGoAway:
			return
		}
		if w.err != nil {
			return
		}
	}
}

// finish records a complete request and responses it with the next action.
func (s *H2Server) finish(w *frameWriter, id uint32, bodies map[uint32][]byte) {
	s.mu.Lock()
	n := len(s.streams)
	s.streams = append(s.streams, H2Stream{ID: id, Body: bodies[id]})
	s.mu.Unlock()
	delete(bodies, id)
	a := s.script[min(n, len(s.script)-1)]
	if a.status == 0 {
		w.frame(frameRSTStream, 0, id, binary.BigEndian.AppendUint32(nil, errCodeProtocol))
		return
	}
	w.frame(frameHeaders, flagEndHeaders, id, responseHeaders(a.status, len(a.body)))
	w.frame(frameData, flagEndStream, id, []byte(a.body))
}

// responseHeaders is an HPACK block of literal fields without indexing and
// without Huffman coding (RFC 7541 §6.2.2), naming each field by its index
// in the static table.
func responseHeaders(status, length int) []byte {
	var b []byte
	field := func(index int, value string) {
		b = append(b, byte(index)) // index < 15 fits the 4-bit prefix
		b = append(b, byte(len(value)))
		b = append(b, value...)
	}
	field(8, strconv.Itoa(status)) // :status
	b = append(b, 0x0f, 31-15)     // content-type: index 31 in a 4-bit prefix
	b = append(b, byte(len("application/json")))
	b = append(b, "application/json"...)
	b = append(b, 0x0f, 28-15) // content-length
	l := strconv.Itoa(length)
	b = append(b, byte(len(l)))
	return append(b, l...)
}

func readFrame(r *bufio.Reader) (typ, flags byte, id uint32, payload []byte, err error) {
	var h [9]byte
	if _, err = io.ReadFull(r, h[:]); err != nil {
		return
	}
	n := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
	if n > 1<<20 {
		return 0, 0, 0, nil, errors.New("frame too large")
	}
	payload = make([]byte, n)
	_, err = io.ReadFull(r, payload)
	return h[3], h[4], binary.BigEndian.Uint32(h[5:]) &^ (1 << 31), payload, err
}

type frameWriter struct {
	w   io.Writer
	err error
}

func (f *frameWriter) frame(typ, flags byte, id uint32, payload []byte) {
	if f.err != nil {
		return
	}
	n := len(payload)
	h := []byte{byte(n >> 16), byte(n >> 8), byte(n), typ, flags}
	h = binary.BigEndian.AppendUint32(h, id)
	_, f.err = f.w.Write(append(h, payload...))
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned() (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "faultinject"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
