package auth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// TestLoadSigningKey: the key forms people have (PKCS #8, SEC 1, PKCS #1)
// sign with the algorithm their type implies; a wrong algorithm, a
// missing file or a non-key say what is wrong and where.
func TestLoadSigningKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ec, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	ecDER, _ := x509.MarshalECPrivateKey(ec)
	pk8, _ := x509.MarshalPKCS8PrivateKey(ec)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	edDER, _ := x509.MarshalPKCS8PrivateKey(ed)
	text := filepath.Join(dir, "text.pem")
	if err := os.WriteFile(text, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, alg string
		want            jose.SignatureAlgorithm
		err             string
	}{
		{"pkcs8 ec", write("ec8.pem", "PRIVATE KEY", pk8), "", jose.ES384, ""},
		{"sec1 ec", write("ec1.pem", "EC PRIVATE KEY", ecDER), "ES384", jose.ES384, ""},
		{"pkcs1 rsa", write("rsa.pem", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rsaKey)), "PS256", jose.PS256, ""},
		{"ed25519", write("ed.pem", "PRIVATE KEY", edDER), "", jose.EdDSA, ""},
		{"wrong algorithm", filepath.Join(dir, "ec8.pem"), "ES256", "", "signingAlgorithm ES256 does not suit the key"},
		{"missing", filepath.Join(dir, "nope.pem"), "", "", "reading the private key (\"privateKeyFile\"): no such file"},
		{"not pem", text, "", "", "holds no PEM block"},
		{"not a key", write("cert.pem", "PRIVATE KEY", []byte{1, 2, 3}), "", "", "not a private key mcpdeck can read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, alg, err := loadSigningKey(tt.path, tt.alg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || alg != tt.want {
				t.Fatalf("alg = %s, %v; want %s", alg, err, tt.want)
			}
		})
	}
}
