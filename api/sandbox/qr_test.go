package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image/png"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"pixdash/api"
)

// decodeQR decodes a data:image/png;base64 URI holding a QR code and returns its text.
func decodeQR(t testing.TB, uri string) string {
	t.Helper()
	b64, ok := strings.CutPrefix(uri, "data:image/png;base64,")
	if !ok {
		t.Fatalf("qrCodeBase64 %.40q is not a PNG data URI", uri)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("qrCodeBase64: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("qrCodeBase64 is not a PNG: %v", err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatalf("bitmap: %v", err)
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("QR decode: %v", err)
	}
	return res.GetText()
}

// Issue 21 #7 and issue 26 #6: the emulator's codes have the service's shape. The merchant
// account field (26) holds only the GUI and the 36-character key (`26 58 0014br.gov.bcb.pix
// 0136<key>`, as in the SDK's fixtures), so a code's length does not depend on the description,
// for charges made through POST /pix and for seeded ones alike.
func TestCodes_ServiceShapeWithoutDescription(t *testing.T) {
	e := newEnv(t)
	c := e.client("mp_test_full")
	checkShape := func(what, code string) int {
		t.Helper()
		b, err := api.ParseBRCode(code)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want := "26580014" + api.PixGUI + "0136" + b.PixKey
		if len(b.PixKey) != 36 || !strings.Contains(code, want) || b.Description != "" || b.URL != "" {
			t.Fatalf("%s: field 26 is not `26 58 0014br.gov.bcb.pix 0136<key>` (key %q, description %q): %s", what, b.PixKey, b.Description, code)
		}
		return utf8.RuneCountInString(code)
	}
	first := -1
	for _, desc := range []string{"V", "Venda", "Coxinha", "Pão de queijo", strings.Repeat("Encomenda de festa ", 7)} {
		pc, err := c.CreatePix(context.Background(), &api.CreatePixRequest{Amount: 1234, Description: desc})
		if err != nil {
			t.Fatal(err)
		}
		n := checkShape(fmt.Sprintf("description %q", desc), pc.PixCopyPaste)
		if first < 0 {
			first = n
		}
		if n != first {
			t.Errorf("description %q: the code has %d characters, %d with a one-letter description", desc, n, first)
		}
	}
	// Seeded charges (the default fixture's, with descriptions) have the same shape.
	e = newEnvFixture(t, DefaultFixture())
	e.srv.mu.Lock()
	var seeded []string
	for _, tx := range e.srv.txs {
		if tx.copyPaste != "" && tx.description != "" {
			seeded = append(seeded, tx.copyPaste)
		}
	}
	e.srv.mu.Unlock()
	if len(seeded) == 0 {
		t.Fatal("the default fixture seeds no charge with a description")
	}
	for i, code := range seeded {
		checkShape(fmt.Sprintf("seeded charge %d", i), code)
	}
}
