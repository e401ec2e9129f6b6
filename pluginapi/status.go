package pluginapi

import (
	"context"
	"errors"
	"io"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// toStatus encodes err for the wire, keeping its Kind in an ErrorDetail.
func toStatus(op string, err error) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if !errors.As(err, &pe) {
		pe = &Error{Op: op, Kind: kindOfPlain(err), Err: err}
	}
	st := status.New(codeOf(pe.Kind), pe.Error())
	if withDetail, derr := st.WithDetails(detailOf(pe)); derr == nil {
		st = withDetail
	}
	return st.Err()
}

// detailOf encodes a typed error for the wire.
func detailOf(pe *Error) *pb.ErrorDetail {
	return &pb.ErrorDetail{Op: pe.Op, Kind: string(pe.Kind), Message: errMessage(pe), LimitSetting: LimitSetting(pe)}
}

// errorFromDetail rebuilds the typed error a detail carries.
func errorFromDetail(d *pb.ErrorDetail) *Error {
	kind := Kind(d.GetKind())
	return &Error{Op: d.GetOp(), Kind: kind, Err: remoteError{msg: d.GetMessage(), base: baseOf(kind), setting: d.GetLimitSetting()}}
}

func errMessage(e *Error) string {
	if e.Err == nil {
		return string(e.Kind)
	}
	return e.Err.Error()
}

func kindOfPlain(err error) Kind {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.Is(err, io.EOF):
		return KindServerExited
	}
	return KindInternal
}

func codeOf(k Kind) codes.Code {
	switch k {
	case KindInvalidConfig:
		return codes.InvalidArgument
	case KindConnect, KindServerExited, KindProtocolMismatch:
		return codes.FailedPrecondition
	case KindTimeout:
		return codes.DeadlineExceeded
	case KindCanceled:
		return codes.Canceled
	case KindUnsupported:
		return codes.Unimplemented
	case KindMessageTooLarge:
		return codes.ResourceExhausted
	case KindUnauthorized:
		return codes.Unauthenticated
	}
	return codes.Internal
}

// fromStatus rebuilds a typed *Error from a gRPC error received by the host.
// A status without our detail means the plugin process or its connection died.
func fromStatus(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) {
		return &Error{Op: op, Kind: KindServerExited, Err: errors.New("connection closed by plugin")}
	}
	st, ok := status.FromError(err)
	if !ok {
		return &Error{Op: op, Kind: kindOfPlain(err), Err: err}
	}
	for _, d := range st.Details() {
		if ed, ok := d.(*pb.ErrorDetail); ok {
			return errorFromDetail(ed)
		}
	}
	switch st.Code() {
	case codes.DeadlineExceeded:
		return &Error{Op: op, Kind: KindTimeout, Err: remoteError{msg: st.Message(), base: context.DeadlineExceeded}}
	case codes.Canceled:
		return &Error{Op: op, Kind: KindCanceled, Err: remoteError{msg: st.Message(), base: context.Canceled}}
	case codes.Unimplemented:
		return &Error{Op: op, Kind: KindUnsupported, Err: remoteError{msg: st.Message()}}
	case codes.ResourceExhausted:
		// gRPC's own receive limit (MaxCallRecvMsgSize): a plugin that does
		// not enforce the message limit itself sent a larger message.
		return &Error{Op: op, Kind: KindMessageTooLarge, Err: remoteError{msg: "the plugin relayed a message over the size limit: " + st.Message()}}
	}
	return &Error{Op: op, Kind: KindPluginExited, Err: remoteError{msg: "plugin unreachable: " + st.Message()}}
}

func baseOf(k Kind) error {
	switch k {
	case KindTimeout:
		return context.DeadlineExceeded
	case KindCanceled:
		return context.Canceled
	}
	return nil
}

// remoteError carries an error message from the other side of the plugin
// boundary; it unwraps to the matching context error so errors.Is keeps working.
type remoteError struct {
	msg     string
	base    error
	setting string // see LimitSetting
}

func (e remoteError) Error() string { return e.msg }
func (e remoteError) Unwrap() error { return e.base }

// LimitSetting returns the setting that raises the limit a
// KindMessageTooLarge error names, when the error says (a spooled result
// over max_result_mb), on either side of the plugin boundary; "" means
// the message limit.
func LimitSetting(err error) string {
	var tooLarge *MessageTooLargeError
	if errors.As(err, &tooLarge) {
		return tooLarge.Setting
	}
	var remote remoteError
	if errors.As(err, &remote) {
		return remote.setting
	}
	return ""
}
