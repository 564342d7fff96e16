package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"unicode"

	"pixdash/api"
)

// Bounds of a given webhook signing secret.
const (
	minHookSecret = 16
	maxHookSecret = 255
)

// checkHookSecret says what is wrong with a given signing secret ("" when it is usable).
func checkHookSecret(secret string) string {
	if len(secret) < minHookSecret || len(secret) > maxHookSecret {
		return fmt.Sprintf("secret must be %d to %d characters", minHookSecret, maxHookSecret)
	}
	for _, r := range secret {
		if r > unicode.MaxASCII || !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return "secret must be printable ASCII without spaces"
		}
	}
	return ""
}

// checkEndpoint validates a fixture webhook endpoint against the account's sub-account references.
func checkEndpoint(e WebhookEndpointFixture, refs map[string]bool) error {
	if !validHookURL(e.URL) {
		return errors.New("url must be an absolute http or https URL of at most 2048 characters")
	}
	if ref := e.SubAccount; ref != "" && ref != api.WalletPrincipal && !refs[ref] {
		return fmt.Errorf("sub_account %q is not a sub-account of the account", ref)
	}
	if msg := checkHookSecret(e.Secret.Reveal()); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// addEndpoint registers url for wallet ref of a with secret ("" generates one). The same url,
// wallet and given secret registered again return the endpoint already there (existed true).
// It answers the problem as (status, message) when it cannot. s.mu is held.
func (s *Server) addEndpoint(a *account, url, ref, secret string) (e *endpoint, existed bool, status int, msg string) {
	if ref == api.WalletPrincipal {
		ref = ""
	}
	if ref != "" && a.wallets[ref] == nil {
		return nil, false, http.StatusNotFound, "Sub-account not found"
	}
	if secret != "" {
		for _, e := range a.endpoints {
			if e.url == url && e.subAccount == ref && e.secret == secret {
				return e, true, 0, ""
			}
		}
	}
	if len(a.endpoints) >= maxEndpointsPerAccount {
		return nil, false, http.StatusConflict, fmt.Sprintf("At most %d webhook endpoints per account", maxEndpointsPerAccount)
	}
	if secret == "" {
		secret = secretToken("whsec_", 24)
	}
	e = &endpoint{id: s.ids.uuid(), url: url, subAccount: ref, secret: secret, createdAt: s.clock.Now()}
	a.endpoints = append(a.endpoints, e)
	return e, false, 0, ""
}

// loadEndpoints registers the fixture's webhook endpoints of a; s.mu is held.
func (s *Server) loadEndpoints(a *account, af *AccountFixture) {
	for j, ef := range af.WebhookEndpoints {
		refs := map[string]bool{}
		for ref := range a.wallets {
			refs[ref] = ref != ""
		}
		if err := checkEndpoint(ef, refs); err != nil {
			s.log.Warn("sandbox: fixture webhook endpoint skipped", "account", a.name, "index", j, "err", err)
			continue
		}
		if _, _, _, msg := s.addEndpoint(a, ef.URL, ef.SubAccount, ef.Secret.Reveal()); msg != "" {
			s.log.Warn("sandbox: fixture webhook endpoint skipped", "account", a.name, "index", j, "err", msg)
		}
	}
}

func (s *Server) handleRegisterWebhook(c *call) {
	var req struct {
		URL        *string `json:"url"`
		SubAccount *string `json:"subAccount"`
		Secret     *string `json:"secret"`
	}
	body, ok := c.readBody()
	if !ok || !c.decodeObject(body, &req) {
		return
	}
	if req.URL == nil || !validHookURL(*req.URL) {
		c.badRequest("url must be an absolute http or https URL of at most 2048 characters")
		return
	}
	secret := ""
	if req.Secret != nil {
		if msg := checkHookSecret(*req.Secret); msg != "" {
			c.badRequest(msg)
			return
		}
		secret = *req.Secret
	}
	ref := ""
	if req.SubAccount != nil {
		ref = *req.SubAccount
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, existed, status, msg := s.addEndpoint(c.acct, *req.URL, ref, secret)
	switch status {
	case http.StatusNotFound:
		c.subAccountError(http.StatusNotFound, api.CodeSubAccountNotFound, ref)
		return
	case http.StatusConflict:
		c.conflict(msg)
		return
	}
	label := api.WalletPrincipal
	if e.subAccount != "" {
		label = e.subAccount
	}
	code := http.StatusCreated
	if existed {
		code = http.StatusOK
	}
	c.json(code, endpointReply{ID: e.id, URL: e.url, SubAccount: label, Secret: e.secret, CreatedAt: e.createdAt.UTC()})
}
