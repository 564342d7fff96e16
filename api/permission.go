package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// PermissionCreateCharges is the permission POST /pix needs (FULL_ACCESS covers it).
const PermissionCreateCharges = "PIX:WRITE"

// ErrNoChargePermission is CanCreateCharges's answer for a credential that signs in but may not
// create charges; the error wraps the service's *Error (with its traceId).
var ErrNoChargePermission = errors.New("the credential signs in but may not create charges: it needs the permission " +
	PermissionCreateCharges + " (or FULL_ACCESS); create a credential with it in the service's dashboard")

// CanCreateCharges asks the service whether the credential may create PIX charges in wallet
// ("" or "principal": the main account), without creating one. The service tells no
// permission list (POST /auth answers only a token), so this sends POST /pix with an empty body
// and no Idempotency-Key: the service checks the token, the permission and X-Sub-Account before
// the body, so a 400 (the body refused) means the charge would have been allowed and nothing
// was created; a 403 naming PIX:WRITE gives ErrNoChargePermission; a refusal of the wallet
// (SUB_ACCOUNT_FORBIDDEN, …) or any other answer is returned as it is. It is never retried.
func (c *Client) CanCreateCharges(ctx context.Context, wallet string) error {
	ro, err := resolveOptions([]RequestOption{WithSubAccount(wallet)})
	if err != nil {
		return err
	}
	// Not through Do, which gives every POST /pix a key (and with it retries): this request
	// can create nothing, so it needs neither.
	err = c.call(ctx, &apiRequest{method: http.MethodPost, path: "/pix", body: struct{}{}, opts: ro})
	var ae *Error
	switch {
	case err == nil:
		// An empty body cannot make a charge; a service that answers 2xx to it is not the one
		// this client speaks to.
		return errors.New("POST /pix with an empty body was accepted: this is not the pague.dev v2 API")
	case errors.As(err, &ae) && ae.HTTPStatus == http.StatusBadRequest && !strings.HasPrefix(ae.Detail("code"), "SUB_ACCOUNT_"):
		return nil // the body's problems (VALIDATION_ERROR): the permission and the wallet passed
	case errors.As(err, &ae) && ae.HTTPStatus == http.StatusForbidden && ae.RequiredPermission() != "":
		return fmt.Errorf("%w (%w)", ErrNoChargePermission, err)
	}
	return err
}
