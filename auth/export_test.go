package auth

import (
	"crypto"

	"github.com/go-jose/go-jose/v4"
)

// What the tests in package auth_test, which go through transport's
// StreamableHTTP, read from inside this package.

const (
	GrantClientCredentials = grantClientCredentials
	GrantJWTBearer         = grantJWTBearer
	ClientAssertionJWT     = clientAssertionJWT
)

// LoadKey loads k as a grant or a proof would: its algorithm and the public
// key that verifies its signatures.
func LoadKey(k SigningKey) (jose.SignatureAlgorithm, crypto.PublicKey, error) {
	key, err := k.load()
	if err != nil {
		return "", nil, err
	}
	return key.alg, key.opaque.Public().Key, nil
}

// SignJWT signs claims with k as a JWT of typ "JWT".
func SignJWT(k SigningKey, claims ...any) (string, error) {
	key, err := k.load()
	if err != nil {
		return "", err
	}
	signer, err := key.newSigner(signOptions{typ: "JWT"})
	if err != nil {
		return "", err
	}
	return signJWT(signer, claims...)
}

// CloseBody is closeBody.
var CloseBody = closeBody
