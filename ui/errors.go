package ui

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"pixdash/api"
	"pixdash/state"
)

// describeErr turns an error into one line: what failed, the cause, the service's trace id, and
// what to do; sanitized, since the message, the trace id and a transport error quote text from outside.
func describeErr(tr catalog, what string, err error) string {
	return sanitize(describeErrRaw(tr, what, err))
}

func describeErrRaw(tr catalog, what string, err error) string {
	var ae *api.Error
	if errors.As(err, &ae) {
		msg := serviceText(tr, ae)
		s := fmt.Sprintf("%s: %s", what, msg)
		if ae.Path == "/auth" {
			s = fmt.Sprintf("%s: %s: %s", what, tr.T("sign-in (POST /auth) failed"), msg)
		}
		if ae.TraceID != "" {
			s += " [trace " + ae.TraceID + "]"
		}
		if h := errorHint(tr, ae); h != "" {
			s += " · " + h
		}
		return s
	}
	var ve *api.ValidationError
	if errors.As(err, &ve) { // refused before sending: no connection to check
		return fmt.Sprintf("%s: %s", what, validationText(tr, ve))
	}
	return fmt.Sprintf("%s: %s", what, transportHint(tr, err))
}

// serviceText is the service's message for display, in the merchant's language (serviceMessage;
// flattened: it is text from outside), with its sub-account code when the message does not
// already name it: the real service sends the code in details.code, apart from a human message.
func serviceText(tr catalog, ae *api.Error) string {
	msg := serviceMessage(tr, ae.Message)
	if msg == "" {
		msg = fmt.Sprint(ae.HTTPStatus)
	}
	if c := ae.SubAccountCode(); c != "" && !strings.Contains(msg, c) {
		msg += " (" + c + ")"
	}
	return sanitize(msg)
}

// transportHint names a failure that is not a reply from the service and says what to do.
func transportHint(tr catalog, err error) string {
	var (
		dnsErr   *net.DNSError
		certErr  *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
		recErr   tls.RecordHeaderError
		netErr   net.Error
		authFail = strings.Contains(err.Error(), "authenticating")
	)
	var cause string
	switch {
	case errors.Is(err, context.Canceled):
		return tr.T("cancelled")
	case errors.Is(err, state.ErrDiskFull):
		return tr.T("this computer's disk is full: free some space; nothing was saved (and nothing was sent)")
	case errors.Is(err, state.ErrNoAccess):
		return tr.T("the local database cannot be written (permissions or a read-only disk); check $XDG_STATE_HOME/pixdash")
	case errors.Is(err, state.ErrIO):
		return tr.T("the disk failed to read or write the local database; check the disk")
	case errors.Is(err, state.ErrDamaged):
		return tr.T("the local database is damaged; quit, keep a copy of $XDG_STATE_HOME/pixdash and report it")
	case errors.Is(err, state.ErrBusy):
		return tr.T("another pixdash window kept the local database busy; try again")
	case errors.As(err, &dnsErr):
		cause = tr.F("cannot resolve %s; check base_url and this machine's network or DNS", dnsErr.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		cause = tr.T("connection refused; is the service running at base_url?")
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &hostErr), errors.As(err, &invalid):
		cause = tr.T("TLS: the server's certificate is not trusted for this host; check base_url and this machine's CA certificates")
	case errors.As(err, &recErr), strings.Contains(err.Error(), "HTTP response to HTTPS client"):
		cause = tr.T("TLS: the server does not speak https at base_url; check the scheme and port")
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		cause = tr.T("the service did not answer in time; check your connection and press r to retry")
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		cause = tr.T("the network dropped the connection; check your connection, the dashboard keeps retrying")
	default:
		cause = fmt.Sprintf("%v · %s", err, tr.T("check your connection; the dashboard keeps retrying"))
	}
	if authFail {
		return tr.T("sign-in (POST /auth) failed") + ": " + cause
	}
	return cause
}

// errorHint says what to do about a refusal from the service.
func errorHint(tr catalog, e *api.Error) string {
	switch e.SubAccountCode() {
	case api.CodeSubAccountForbidden:
		return tr.T("this credential's access to sub-accounts is off: switch it on in the dashboard under Settings › Integration › API Credentials › 'Access to sub-accounts'")
	case api.CodeSubAccountSuspended:
		return tr.T("this sub-account is suspended; switch to another wallet (w) or contact support")
	case api.CodeSubAccountNotFound:
		return tr.T("no sub-account with that reference in this account/environment; pick one from the wallet list (w)")
	case api.CodeSubAccountReferenceTaken:
		return tr.T("choose another reference")
	case api.CodeSubAccountQuotaExceeded:
		return tr.T("the account reached its sub-account limit; contact support to raise it")
	case api.CodeSubAccountInvalidReference:
		if v := e.Detail("value"); v != "" && v != api.WalletPrincipal {
			return tr.T("use only lowercase letters, digits, - and _, starting with a letter or digit")
		}
		return tr.T("'principal' is reserved for the main account")
	}
	if p := e.RequiredPermission(); p != "" {
		return tr.F("create a credential with %s (or FULL_ACCESS)", p)
	}
	if r := e.InstitutionReason(); r != "" {
		return tr.T("the pinned institution cannot issue this charge; remove pspCredentialId to use configured routing")
	}
	lower := strings.ToLower(e.Message)
	switch {
	case e.HTTPStatus == 401 && strings.Contains(lower, "expired"):
		return tr.T("the token was refused as expired right after sign-in: check this machine's clock (NTP)")
	case e.HTTPStatus == 401:
		return tr.T("check client_id and the secret (pixdash config check)")
	case e.HTTPStatus == 403 && strings.Contains(lower, "ip"):
		return tr.T("this machine's IP is not in the credential's allow-list; add it in the dashboard or use another network")
	case e.HTTPStatus == 403:
		return tr.T("the credential or this machine's IP is not allowed; check the credential's permissions and IP allow-list")
	case e.HTTPStatus == 404:
		return tr.T("nothing matched; check the id")
	case e.HTTPStatus == 422:
		return tr.T("this idempotency key was used with a different charge; open a new form")
	case e.HTTPStatus == 429:
		return tr.T("too many requests; the dashboard slows down and retries")
	case e.HTTPStatus >= 500 && e.Path == "/auth":
		return tr.T("the sign-in endpoint is failing; the dashboard retries on the next call")
	case e.HTTPStatus >= 500:
		return tr.T("the service failed; try again in a moment (same charge, no duplicate)")
	}
	return ""
}
