package pipeline

import (
	"errors"
	"net/http/httptrace"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSendGuard_AttemptsAreSeparate: the guard's permits follow the SDK's
// attempts: a stale send of an attempt the retry rule closed is refused.
func TestSendGuard_AttemptsAreSeparate(t *testing.T) {
	g := &sendGuard{once: true}
	require.Nil(t, g.take(), "no attempt armed")
	g.arm()
	require.NotNil(t, g.take())
	require.Nil(t, g.take(), "second send of one attempt")
	g.done(false, nil) // provably never left: the permit comes back
	require.NotNil(t, g.take())
	g.done(true, nil)
	require.Nil(t, g.take())
	assert.False(t, g.disarm(), "the attempt left")
	assert.True(t, g.mayHaveSent())

	g = &sendGuard{once: true}
	g.arm()
	require.NotNil(t, g.take())
	assert.True(t, g.mayHaveSent(), "a send under way may have left")
	assert.False(t, g.disarm(), "a send under way")
	g.done(false, nil)
	assert.Nil(t, g.take(), "the attempt is closed: no permit comes back")
	assert.False(t, g.mayHaveSent())
	g.arm()
	require.NotNil(t, g.take())
	g.done(false, nil)
	assert.True(t, g.disarm(), "no send of the attempt left")
	assert.False(t, errors.Is(errors.New("x"), ErrResendRefused))
}

// TestSendGuard_TracePerSend: a send never reads another's connection: one
// beside a send in flight gets a trace of its own, and the guard's shared
// trace starts each send unconnected.
func TestSendGuard_TracePerSend(t *testing.T) {
	g := &sendGuard{}
	first := g.take()
	require.NotNil(t, first)
	first.trace.GotConn(httptrace.GotConnInfo{})
	second := g.take()
	require.NotNil(t, second)
	assert.NotSame(t, first, second, "two sends in flight")
	assert.False(t, second.connected.Load(), "the second send got no connection")
	assert.True(t, first.connected.Load())
	g.done(true, nil)
	g.done(true, nil)
	third := g.take()
	require.NotNil(t, third)
	assert.False(t, third.connected.Load(), "a later send starts unconnected")
	g.done(false, nil)
}
