package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
	"github.com/go-jose/go-jose/v4/jwt"
)

// SigningKey is a private key that signs this client's JWTs: the client
// assertions of private_key_jwt ([ClientCredentialsJWT], [EnterpriseAuth])
// and DPoP proofs ([DPoP]). Set exactly one of File and Signer.
//
// The key never leaves the process: it is in no log, no error and no
// formatted or JSON form of a SigningKey (String, GoString and MarshalJSON
// name only where the key comes from and its algorithm).
type SigningKey struct {
	// File is a PEM file holding one unencrypted private key: PKCS #8
	// ("PRIVATE KEY"), SEC 1 ("EC PRIVATE KEY") or PKCS #1 ("RSA PRIVATE
	// KEY"). It is read each time a handler signs a client assertion, so a
	// rotated file takes effect without a restart; a DPoP key is read once.
	File string
	// Signer is the key itself, e.g. one held by a hardware module or a key
	// management service: ECDSA (P-256, P-384, P-521), RSA (2048 bits or
	// more) or Ed25519.
	Signer crypto.Signer
	// Algorithm is the JWS algorithm ("ES256", "PS256", "EdDSA", ...). Empty
	// means the key's natural one: ES256, ES384 or ES512 by curve, RS256 for
	// RSA, EdDSA for Ed25519.
	Algorithm string
	// KeyID, if set, is the "kid" header of client assertions, for an
	// authorization server that holds several keys of this client.
	KeyID string
}

// String names the key's source and algorithm, never the key.
func (k SigningKey) String() string {
	alg := k.Algorithm
	if alg == "" {
		alg = "default algorithm"
	}
	switch {
	case k.File != "" && k.Signer != nil:
		return fmt.Sprintf("signing key (%s; both a file and a signer)", alg)
	case k.File != "":
		return fmt.Sprintf("signing key (%s) from file %q", alg, k.File)
	case k.Signer != nil:
		return fmt.Sprintf("signing key (%s) from a %T", alg, k.Signer)
	}
	return "signing key (none)"
}

// GoString is String, so that %#v prints no key either.
func (k SigningKey) GoString() string { return k.String() }

// MarshalJSON encodes String, so that a reflecting logger prints no key.
func (k SigningKey) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }

// errNoKey is what a SigningKey with neither a file nor a signer fails with.
var errNoKey = errors.New("auth: signing key: set File or Signer")

// check reports a SigningKey that cannot work without touching the key:
// neither or both sources, or an algorithm JOSE does not name.
func (k SigningKey) check() error {
	switch {
	case k.File == "" && k.Signer == nil:
		return errNoKey
	case k.File != "" && k.Signer != nil:
		return errors.New("auth: signing key: set only one of File and Signer")
	}
	if k.Algorithm != "" && !slices.Contains(signingAlgorithms, jose.SignatureAlgorithm(k.Algorithm)) {
		return fmt.Errorf("auth: signing key: unsupported algorithm %q", k.Algorithm)
	}
	return nil
}

// signingAlgorithms are the asymmetric JWS algorithms a SigningKey may use;
// symmetric ones and "none" are refused (RFC 9449 §11.6, RFC 7523 §3).
var signingAlgorithms = []jose.SignatureAlgorithm{
	jose.ES256, jose.ES384, jose.ES512,
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.EdDSA,
}

// jwtKey is a loaded SigningKey: go-jose signs through it, whatever the key
// is held in.
type jwtKey struct {
	opaque jose.OpaqueSigner
	alg    jose.SignatureAlgorithm
	kid    string
}

// load reads the key (from its file, if that is its source) and settles its
// algorithm. Errors name the file, never its content.
func (k SigningKey) load() (*jwtKey, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	signer := k.Signer
	if k.File != "" {
		s, err := readKeyFile(k.File)
		if err != nil {
			return nil, err
		}
		signer = s
	}
	opaque := cryptosigner.Opaque(signer)
	algs := opaque.Algs()
	if len(algs) == 0 {
		return nil, fmt.Errorf("auth: signing key: unsupported key type %T", signer.Public())
	}
	if pub, ok := signer.Public().(*rsa.PublicKey); ok && pub.N.BitLen() < 2048 {
		return nil, fmt.Errorf("auth: signing key: RSA key of %d bits; at least 2048 are needed", pub.N.BitLen())
	}
	alg := algs[0]
	if k.Algorithm != "" {
		alg = jose.SignatureAlgorithm(k.Algorithm)
		if !slices.Contains(algs, alg) {
			return nil, fmt.Errorf("auth: signing key: algorithm %s does not fit a %s key", alg, keyKind(signer.Public()))
		}
	}
	return &jwtKey{opaque: opaque, alg: alg, kid: k.KeyID}, nil
}

// readKeyFile parses the one PEM private key in path.
func readKeyFile(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth: signing key file: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("auth: signing key file %q holds no PEM block", path)
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("auth: signing key file %q: PEM block %q is not an unencrypted private key", path, block.Type)
	}
	if err != nil {
		// x509's messages describe the structure, not the key's bytes.
		return nil, fmt.Errorf("auth: signing key file %q: %w", path, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("auth: signing key file %q: a %T cannot sign", path, key)
	}
	return signer, nil
}

// keyKind names a public key's type for errors.
func keyKind(pub crypto.PublicKey) string {
	switch pub := pub.(type) {
	case *ecdsa.PublicKey:
		return "ECDSA " + pub.Curve.Params().Name
	case *rsa.PublicKey:
		return "RSA"
	case ed25519.PublicKey:
		return "Ed25519"
	}
	return fmt.Sprintf("%T", pub)
}

// signOptions are the header options of a JWT signed by k.
type signOptions struct {
	typ      string // "typ" header; empty leaves it out
	embedJWK bool   // put the public key in the "jwk" header (DPoP)
}

// newSigner returns a go-jose signer with k's key and opts' headers.
func (k *jwtKey) newSigner(opts signOptions) (jose.Signer, error) {
	so := &jose.SignerOptions{EmbedJWK: opts.embedJWK}
	if opts.typ != "" {
		so = so.WithType(jose.ContentType(opts.typ))
	}
	if k.kid != "" && !opts.embedJWK {
		so = so.WithHeader("kid", k.kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.opaque}, so)
	if err != nil {
		return nil, fmt.Errorf("auth: signing key: %w", err)
	}
	return s, nil
}

// signJWT serialises claims (any number of values that marshal to JSON
// objects, merged) as a compact JWT signed by s.
func signJWT(s jose.Signer, claims ...any) (string, error) {
	b := jwt.Signed(s)
	for _, c := range claims {
		b = b.Claims(c)
	}
	token, err := b.Serialize()
	if err != nil {
		return "", fmt.Errorf("auth: signing a JWT: %w", err)
	}
	return token, nil
}

// newEphemeralKey makes the P-256 key of a [DPoP] that was given none. The
// key lives as long as the DPoP value, and so do the tokens bound to it.
func newEphemeralKey() (*jwtKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("auth: DPoP key: %w", err)
	}
	return &jwtKey{opaque: cryptosigner.Opaque(priv), alg: jose.ES256}, nil
}
