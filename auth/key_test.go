package auth_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/transport"
)

func newECKey(t *testing.T, curve elliptic.Curve) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(curve, rand.Reader)
	require.NoError(t, err)
	return k
}

// keyFile writes key as PEM of the given block type to a file of its own
// and returns the path and the PEM text. A nil key writes bytes that are no
// key in a block of that type.
func keyFile(t *testing.T, key any, blockType string) (string, string) {
	t.Helper()
	var der []byte
	var err error
	switch {
	case key == nil:
		der = []byte("not a key at all, but long enough to look like one")
	case blockType == "PRIVATE KEY":
		der, err = x509.MarshalPKCS8PrivateKey(key)
	case blockType == "EC PRIVATE KEY":
		der, err = x509.MarshalECPrivateKey(key.(*ecdsa.PrivateKey))
	case blockType == "RSA PRIVATE KEY":
		der = x509.MarshalPKCS1PrivateKey(key.(*rsa.PrivateKey))
	}
	require.NoError(t, err)
	text := string(pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}))
	path := filepath.Join(t.TempDir(), "key.pem")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path, text
}

// secretsOf lists the forms a private key's secret takes in print: the PEM
// body's lines, and the scalar D of an EC key in decimal, hex and base64url.
func secretsOf(pemText string, key any) []string {
	var out []string
	for _, line := range strings.Split(pemText, "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			out = append(out, line)
		}
	}
	if ec, ok := key.(*ecdsa.PrivateKey); ok {
		d, _ := ec.Bytes()
		out = append(out, new(big.Int).SetBytes(d).String(), hex.EncodeToString(d), base64.RawURLEncoding.EncodeToString(d))
	}
	return out
}

func assertNoSecret(t *testing.T, text string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		require.NotEmpty(t, s)
		assert.NotContains(t, text, s, "a secret leaked into: %.200s", text)
	}
}

func TestSigningKeyLoadsEachPEMFormAndPicksItsAlgorithm(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	p256, p384, p521 := newECKey(t, elliptic.P256()), newECKey(t, elliptic.P384()), newECKey(t, elliptic.P521())
	file := func(key any, block string) string { p, _ := keyFile(t, key, block); return p }
	for _, tc := range []struct {
		name string
		key  auth.SigningKey
		pub  crypto.PublicKey
		alg  jose.SignatureAlgorithm
	}{
		{"PKCS #8 P-256", auth.SigningKey{File: file(p256, "PRIVATE KEY")}, p256.Public(), jose.ES256},
		{"SEC 1 P-384", auth.SigningKey{File: file(p384, "EC PRIVATE KEY")}, p384.Public(), jose.ES384},
		{"PKCS #1 RSA", auth.SigningKey{File: file(rsaKey, "RSA PRIVATE KEY")}, rsaKey.Public(), jose.RS256},
		{"PKCS #8 RSA as PS256", auth.SigningKey{File: file(rsaKey, "PRIVATE KEY"), Algorithm: "PS256"}, rsaKey.Public(), jose.PS256},
		{"PKCS #8 Ed25519", auth.SigningKey{File: file(edKey, "PRIVATE KEY")}, edKey.Public(), jose.EdDSA},
		{"a crypto.Signer, P-521", auth.SigningKey{Signer: p521, KeyID: "k-1"}, p521.Public(), jose.ES512},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alg, _, err := auth.LoadKey(tc.key)
			require.NoError(t, err)
			assert.Equal(t, tc.alg, alg)
			token, err := auth.SignJWT(tc.key, jwt.Claims{Subject: "me"})
			require.NoError(t, err)
			parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{tc.alg})
			require.NoError(t, err)
			var claims jwt.Claims
			require.NoError(t, parsed.Claims(tc.pub, &claims), "the public key verifies the signature")
			assert.Equal(t, "me", claims.Subject)
			assert.Equal(t, tc.key.KeyID, parsed.Headers[0].KeyID)
		})
	}
}

func TestSigningKeyRefusesWhatCannotWorkWithoutQuotingIt(t *testing.T) {
	ec := newECKey(t, elliptic.P256())
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	ecFile, ecPEM := keyFile(t, ec, "PRIVATE KEY")
	smallFile, smallPEM := keyFile(t, small, "RSA PRIVATE KEY")
	garbageFile, garbagePEM := keyFile(t, nil, "PRIVATE KEY")
	encryptedFile, encryptedPEM := keyFile(t, nil, "ENCRYPTED PRIVATE KEY")
	notPEM := filepath.Join(t.TempDir(), "key.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("just some words, no PEM block here at all"), 0o600))
	secrets := append(append(append(secretsOf(ecPEM, ec), secretsOf(smallPEM, nil)...), secretsOf(garbagePEM, nil)...), secretsOf(encryptedPEM, nil)...)
	for _, tc := range []struct {
		name string
		key  auth.SigningKey
		want string
	}{
		{"neither source", auth.SigningKey{}, "set File or Signer"},
		{"both sources", auth.SigningKey{File: ecFile, Signer: ec}, "only one of File and Signer"},
		{"a symmetric algorithm", auth.SigningKey{Signer: ec, Algorithm: "HS256"}, `unsupported algorithm "HS256"`},
		{"no algorithm", auth.SigningKey{Signer: ec, Algorithm: "none"}, `unsupported algorithm "none"`},
		{"an algorithm of another key type", auth.SigningKey{File: ecFile, Algorithm: "RS256"}, "RS256 does not fit a ECDSA P-256 key"},
		{"a short RSA key", auth.SigningKey{File: smallFile}, "1024 bits"},
		{"no such file", auth.SigningKey{File: filepath.Join(t.TempDir(), "absent.pem")}, "no such file"},
		{"no PEM", auth.SigningKey{File: notPEM}, "holds no PEM block"},
		{"an encrypted key", auth.SigningKey{File: encryptedFile}, `"ENCRYPTED PRIVATE KEY" is not an unencrypted private key`},
		{"garbage in the block", auth.SigningKey{File: garbageFile}, "signing key file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := auth.LoadKey(tc.key)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assertNoSecret(t, err.Error(), secrets)
		})
	}
}

func TestNoFormOfAnAuthOptionShowsAKeyOrSecret(t *testing.T) {
	ec := newECKey(t, elliptic.P256())
	file, text := keyFile(t, ec, "PRIVATE KEY")
	const clientSecret, idpSecret = "client-secret-3f9a7c21", "idp-secret-8b2e6d44"
	secrets := append(secretsOf(text, ec), clientSecret, idpSecret)
	values := map[string]any{
		"key from a signer":      auth.SigningKey{Signer: ec},
		"key from a file":        auth.SigningKey{File: file},
		"client credentials JWT": &auth.ClientCredentialsJWT{ClientID: "svc", Key: auth.SigningKey{Signer: ec}},
		"enterprise": &auth.EnterpriseAuth{ClientID: "c", ClientSecret: clientSecret, IdPClientID: "i",
			IdPClientSecret: idpSecret, IdPIssuer: "https://idp.example"},
		"enterprise with a key": &auth.EnterpriseAuth{ClientID: "c", Key: &auth.SigningKey{Signer: ec}},
		"DPoP":                  &auth.DPoP{Key: &auth.SigningKey{Signer: ec}},
		"transport": transport.StreamableHTTP{URL: "https://mcp.example/mcp", DPoP: &auth.DPoP{Key: &auth.SigningKey{Signer: ec}},
			OAuthHandler: &auth.ClientCredentialsJWT{ClientID: "svc", Key: auth.SigningKey{Signer: ec}}},
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
				assertNoSecret(t, fmt.Sprintf(verb, v), secrets)
			}
			b, err := json.Marshal(v)
			require.NoError(t, err)
			assertNoSecret(t, string(b), secrets)

			var buf bytes.Buffer
			logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&buf), zap.DebugLevel))
			logger.Info("auth option", zap.Any("value", v), zap.Reflect("reflected", v))
			require.NoError(t, logger.Sync())
			assert.Contains(t, buf.String(), "auth option")
			assertNoSecret(t, buf.String(), secrets)
		})
	}
}
