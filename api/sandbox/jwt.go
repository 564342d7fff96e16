package sandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"pixdash/api"
)

var jwtHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

type jwtClaims struct {
	Sub string `json:"sub"`
	Env string `json:"env"`
	Iat int64  `json:"iat"`
	Exp int64  `json:"exp"`
	Jti string `json:"jti"`
}

// issueToken returns an HS256 JWT for clientID valid for api.TokenLifetime from now.
func (s *Server) issueToken(c *credential, now time.Time) string {
	claims := jwtClaims{Sub: c.clientID, Env: string(c.acct.env), Iat: now.Unix(),
		Exp: now.Add(api.TokenLifetime).Unix(), Jti: s.ids.uuid()}
	payload, _ := json.Marshal(claims)
	signing := jwtHeader + "." + base64.RawURLEncoding.EncodeToString(payload)
	return signing + "." + s.jwtSign(signing)
}

func (s *Server) jwtSign(signing string) string {
	m := hmac.New(sha256.New, s.jwtKey)
	m.Write([]byte(signing))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Token verdicts.
const (
	tokenOK = iota
	tokenInvalid
	tokenExpired
)

// checkToken verifies tok's signature and expiry at now and returns its client id.
func (s *Server) checkToken(tok string, now time.Time) (string, int) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] != jwtHeader {
		return "", tokenInvalid
	}
	want := s.jwtSign(parts[0] + "." + parts[1])
	if !hmac.Equal([]byte(want), []byte(parts[2])) {
		return "", tokenInvalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", tokenInvalid
	}
	var c jwtClaims
	if json.Unmarshal(raw, &c) != nil || c.Sub == "" {
		return "", tokenInvalid
	}
	if now.Unix() >= c.Exp {
		return c.Sub, tokenExpired
	}
	return c.Sub, tokenOK
}
