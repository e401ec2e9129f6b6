package msgtransport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestRequestSendsParamsAsIsAndReturnsTheRawResult(t *testing.T) {
	tr, conn := started(t)
	params := json.RawMessage(`{"uri":"a<b>&c","x":  1}`)
	type out struct {
		res json.RawMessage
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := tr.Request(context.Background(), Request{Method: "resources/read", Params: params})
		done <- out{res, err}
	}()
	sent := <-conn.toServer
	if !strings.Contains(string(sent), `"params":{"uri":"a<b>&c","x":  1}`) || !strings.Contains(string(sent), `"method":"resources/read"`) {
		t.Errorf("sent %s; want the params byte for byte", sent)
	}
	var req struct{ ID string }
	_ = json.Unmarshal(sent, &req)
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":"` + req.ID + `","result":{"contents":[ {"uri":"a<b>"} ]}}`)
	got := <-done
	if got.err != nil || string(got.res) != `{"contents":[ {"uri":"a<b>"} ]}` {
		t.Errorf("Request = %s, %v; want the result exactly as sent", got.res, got.err)
	}
}

func TestRequestReturnsTheServerErrorWhole(t *testing.T) {
	tr, conn := started(t)
	errc := make(chan error, 1)
	go func() {
		_, err := tr.Request(context.Background(), Request{Method: "resources/read"})
		errc <- err
	}()
	serverAnswer(t, conn, `"error":{"code":-32002,"message":"Resource not found","data":{"uri":"x"}}`)
	var re *RPCError
	if err := <-errc; !errors.As(err, &re) || re.Code != -32002 || re.Message != "Resource not found" || string(re.Data) != `{"uri":"x"}` {
		t.Errorf("Request error = %#v; want the server's code, message and data", err)
	}
}

func TestRawNotificationsComeBeforeTheResponseTheyPreceded(t *testing.T) {
	tr, conn := started(t)
	var mu sync.Mutex
	var seen []string
	tr.SetRawHandlers(RawHandlers{Notification: func(method string, params json.RawMessage) {
		mu.Lock()
		seen = append(seen, method+string(params))
		mu.Unlock()
	}})
	done := make(chan []string, 1)
	go func() {
		_, err := tr.Request(context.Background(), Request{Method: "tools/call"})
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		done <- append([]string(nil), seen...)
		mu.Unlock()
	}()
	var req struct{ ID string }
	_ = json.Unmarshal(<-conn.toServer, &req)
	for i := range 50 {
		conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":` + string(rune('0'+i%10)) + `}}`)
	}
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":"` + req.ID + `","result":{}}`)
	if got := <-done; len(got) != 50 {
		t.Errorf("when the response returned, %d of the 50 notifications sent before it were handled", len(got))
	}
}

func TestRawServerRequestIsAnsweredAndCancellable(t *testing.T) {
	tr, conn := started(t)
	started := make(chan struct{})
	tr.SetRawHandlers(RawHandlers{
		Notification: func(string, json.RawMessage) {},
		Request: func(ctx context.Context, req ServerRequest) (json.RawMessage, error) {
			switch req.Method {
			case "roots/list":
				return json.RawMessage(`{"roots":[{"uri":"file:///a<"}]}`), nil
			case "elicitation/create":
				return nil, &RPCError{Code: -32601, Message: "no client", Data: json.RawMessage(`{"why":1}`)}
			}
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`)
	if got := string(<-conn.toServer); got != `{"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file:///a<"}]}}` {
		t.Errorf("answer %s; want the handler's result as is", got)
	}
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{}}`)
	if got := string(<-conn.toServer); got != `{"jsonrpc":"2.0","id":"e","error":{"code":-32601,"message":"no client","data":{"why":1}}}` {
		t.Errorf("answer %s; want the handler's JSON-RPC error", got)
	}
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}`)
	<-started
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	var ans struct {
		ID    int
		Error *RPCError
	}
	if err := json.Unmarshal(<-conn.toServer, &ans); err != nil || ans.ID != 9 || ans.Error == nil {
		t.Errorf("after the server cancelled request 9 its handler should end with an error answer; got %+v, %v", ans, err)
	}
}

func TestRelatedRequestMarkIsTakenOut(t *testing.T) {
	tr, conn := started(t)
	got := make(chan string, 2)
	tr.SetRawHandlers(RawHandlers{
		Notification: func(string, json.RawMessage) {},
		Request: func(ctx context.Context, req ServerRequest) (json.RawMessage, error) {
			got <- req.Related + " " + string(req.Params)
			return json.RawMessage(`{}`), nil
		},
	})
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"maxTokens":1,"_meta":{"dev.plughost/related-request":"plughost-7"}}}`)
	<-conn.toServer
	if g := <-got; g != `"plughost-7" {"maxTokens":1}` {
		t.Errorf("handler got %s; want the related id and the params without the mark (nor an empty _meta)", g)
	}
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"roots/list","params":{"_meta":{"k":1,"dev.plughost/related-request":"plughost-8"}}}`)
	<-conn.toServer
	if g := <-got; g != `"plughost-8" {"_meta":{"k":1}}` {
		t.Errorf("handler got %s; want the server's own _meta kept", g)
	}
}

func TestRequestNotesItsID(t *testing.T) {
	tr, conn := started(t)
	noted := make(chan string, 1)
	go tr.Request(context.Background(), Request{Method: "ping", OnID: func(id string) { noted <- id }})
	var req struct{ ID json.RawMessage }
	_ = json.Unmarshal(<-conn.toServer, &req)
	if id := <-noted; id != string(req.ID) {
		t.Errorf("noted id %s; the request went with %s", id, req.ID)
	}
}
