package common

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

// DescribeErr turns an error into one line: what failed, the cause, the service's trace id, and
// what to do; sanitized, since the message, the trace id and a transport error quote text from outside.
func DescribeErr(tr Catalog, what string, err error) string {
	return Sanitize(describeErrRaw(tr, what, err))
}

func describeErrRaw(tr Catalog, what string, err error) string {
	var ae *api.Error
	if errors.As(err, &ae) {
		msg := ServiceText(tr, ae)
		s := fmt.Sprintf("%s: %s", what, msg)
		if ae.Path == "/auth" {
			s = fmt.Sprintf("%s: %s: %s", what, tr.T("errors.sign_in_post_auth_failed"), msg)
		}
		if ae.TraceID != "" {
			s += " [trace " + ae.TraceID + "]"
		}
		if h := ErrorHint(tr, ae); h != "" {
			s += " · " + h
		}
		return s
	}
	var ve *api.ValidationError
	if errors.As(err, &ve) { // refused before sending: no connection to check
		return fmt.Sprintf("%s: %s", what, ValidationText(tr, ve))
	}
	return fmt.Sprintf("%s: %s", what, transportHint(tr, err))
}

// ServiceText is the service's message for display, in the merchant's language (serviceMessage;
// flattened: it is text from outside), with its sub-account code when the message does not
// already name it: the real service sends the code in details.code, apart from a human message.
func ServiceText(tr Catalog, ae *api.Error) string {
	msg := ServiceMessage(tr, ae.Message)
	if msg == "" {
		msg = fmt.Sprint(ae.HTTPStatus)
	}
	if c := ae.SubAccountCode(); c != "" && !strings.Contains(msg, c) {
		msg += " (" + c + ")"
	}
	return Sanitize(msg)
}

// transportHint names a failure that is not a reply from the service and says what to do.
func transportHint(tr Catalog, err error) string {
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
		return tr.T("errors.cancelled")
	case errors.Is(err, state.ErrDiskFull):
		return tr.T("errors.this_computer_s_disk_is_full")
	case errors.Is(err, state.ErrNoAccess):
		return tr.T("errors.the_local_database_cannot_be_written")
	case errors.Is(err, state.ErrIO):
		return tr.T("errors.the_disk_failed_to_read_or")
	case errors.Is(err, state.ErrDamaged):
		return tr.T("errors.the_local_database_is_damaged_quit")
	case errors.Is(err, state.ErrBusy):
		return tr.T("errors.another_pixdash_window_kept_the_local")
	case errors.As(err, &dnsErr):
		cause = tr.F("errors.cannot_resolve_check_base_url_and", dnsErr.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		cause = tr.T("errors.connection_refused_is_the_service_running")
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &hostErr), errors.As(err, &invalid):
		cause = tr.T("errors.tls_the_server_s_certificate_is")
	case errors.As(err, &recErr), strings.Contains(err.Error(), "HTTP response to HTTPS client"):
		cause = tr.T("errors.tls_the_server_does_not_speak")
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		cause = tr.T("errors.the_service_did_not_answer_in")
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		cause = tr.T("errors.the_network_dropped_the_connection_check")
	default:
		cause = fmt.Sprintf("%v · %s", err, tr.T("errors.check_your_connection_the_dashboard_keeps"))
	}
	if authFail {
		return tr.T("errors.sign_in_post_auth_failed") + ": " + cause
	}
	return cause
}

// ErrorHint says what to do about a refusal from the service.
func ErrorHint(tr Catalog, e *api.Error) string {
	switch e.SubAccountCode() {
	case api.CodeSubAccountForbidden:
		return tr.T("errors.this_credential_s_access_to_sub")
	case api.CodeSubAccountSuspended:
		return tr.T("errors.this_sub_account_is_suspended_switch")
	case api.CodeSubAccountNotFound:
		return tr.T("errors.no_sub_account_with_that_reference")
	case api.CodeSubAccountReferenceTaken:
		return tr.T("errors.choose_another_reference")
	case api.CodeSubAccountQuotaExceeded:
		return tr.T("errors.the_account_reached_its_sub_account")
	case api.CodeSubAccountInvalidReference:
		if v := e.Detail("value"); v != "" && v != api.WalletPrincipal {
			return tr.T("errors.use_only_lowercase_letters_digits_and")
		}
		return tr.T("errors.principal_is_reserved_for_the_main")
	}
	if p := e.RequiredPermission(); p != "" {
		return tr.F("errors.create_a_credential_with_or_full", p)
	}
	if r := e.InstitutionReason(); r != "" {
		return tr.T("errors.the_pinned_institution_cannot_issue_this")
	}
	lower := strings.ToLower(e.Message)
	switch {
	case e.HTTPStatus == 401 && strings.Contains(lower, "expired"):
		return tr.T("errors.the_token_was_refused_as_expired")
	case e.HTTPStatus == 401:
		return tr.T("errors.check_client_id_and_the_secret")
	case e.HTTPStatus == 403 && strings.Contains(lower, "ip"):
		return tr.T("errors.this_machine_s_ip_is_not")
	case e.HTTPStatus == 403:
		return tr.T("errors.the_credential_or_this_machine_s")
	case e.HTTPStatus == 404:
		return tr.T("errors.nothing_matched_check_the_id")
	case e.HTTPStatus == 422:
		return tr.T("errors.this_idempotency_key_was_used_with")
	case e.HTTPStatus == 429:
		return tr.T("errors.too_many_requests_the_dashboard_slows")
	case e.HTTPStatus >= 500 && e.Path == "/auth":
		return tr.T("errors.the_sign_in_endpoint_is_failing")
	case e.HTTPStatus >= 500:
		return tr.T("errors.the_service_failed_try_again_in")
	}
	return ""
}
