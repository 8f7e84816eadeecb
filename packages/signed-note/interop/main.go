// Cross-check of @verifiable-memory/signed-note against Go's golang.org/x/mod/sumdb/note and
// sumdb/tlog (Debian's golang-golang-x-mod-dev, GOPATH mode). Reads a JSON case file on stdin,
// writes what Go computes as JSON on stdout; interop.ts compares. docs/protocol.md §13.2.
package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type input struct {
	Skey   string   `json:"skey"`
	Vkeys  []string `json:"vkeys"`
	Texts  []string `json:"texts"`
	Notes  []string `json:"notes"`
	Leaves []string `json:"leaves"`
	Tiles  []struct {
		L int64 `json:"l"`
		N int64 `json:"n"`
		W int   `json:"w"`
	} `json:"tiles"`
}

type opened struct {
	Ok    bool   `json:"ok"`
	Text  string `json:"text"`
	Error string `json:"error"`
}

type output struct {
	Vkey      string   `json:"vkey"`
	Signed    []string `json:"signed"`
	Opened    []opened `json:"opened"`
	Roots     []string `json:"roots"`
	TilePaths []string `json:"tilePaths"`
	TileData  []string `json:"tileData"`
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// signerPublicKey derives the Ed25519 public key of a note signer key
// PRIVATE+KEY+<name>+<id>+<base64(0x01 || seed)>.
func signerPublicKey(skey string) ed25519.PublicKey {
	parts := strings.SplitN(skey, "+", 5)
	key, err := base64.StdEncoding.DecodeString(parts[4])
	must(err)
	return ed25519.NewKeyFromSeed(key[1:]).Public().(ed25519.PublicKey)
}

func main() {
	var in input
	must(json.NewDecoder(os.Stdin).Decode(&in))
	var out output
	signer, err := note.NewSigner(in.Skey)
	must(err)
	out.Vkey, err = note.NewEd25519VerifierKey(signer.Name(), signerPublicKey(in.Skey))
	must(err)
	var verifiers []note.Verifier
	for _, vkey := range in.Vkeys {
		v, err := note.NewVerifier(vkey)
		must(err)
		verifiers = append(verifiers, v)
	}
	for _, text := range in.Texts {
		msg, err := note.Sign(&note.Note{Text: text}, signer)
		must(err)
		out.Signed = append(out.Signed, string(msg))
	}
	for _, msg := range in.Notes {
		n, err := note.Open([]byte(msg), note.VerifierList(verifiers...))
		if err != nil {
			out.Opened = append(out.Opened, opened{Error: err.Error()})
		} else {
			out.Opened = append(out.Opened, opened{Ok: true, Text: n.Text})
		}
	}
	// The RFC 6962 tree of the leaves (base64 data), its root at every size, and its tiles.
	var hashes []tlog.Hash
	for i, leaf := range in.Leaves {
		data, err := base64.StdEncoding.DecodeString(leaf)
		must(err)
		stored, err := tlog.StoredHashes(int64(i), data, tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
			r := make([]tlog.Hash, len(idx))
			for j, k := range idx {
				r[j] = hashes[k]
			}
			return r, nil
		}))
		must(err)
		hashes = append(hashes, stored...)
	}
	reader := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		r := make([]tlog.Hash, len(idx))
		for j, k := range idx {
			if k >= int64(len(hashes)) {
				return nil, fmt.Errorf("hash %d is not stored", k)
			}
			r[j] = hashes[k]
		}
		return r, nil
	})
	for n := int64(1); n <= int64(len(in.Leaves)); n++ {
		root, err := tlog.TreeHash(n, reader)
		must(err)
		out.Roots = append(out.Roots, base64.StdEncoding.EncodeToString(root[:]))
	}
	for _, t := range in.Tiles {
		tile := tlog.Tile{H: 8, L: int(t.L), N: t.N, W: t.W}
		out.TilePaths = append(out.TilePaths, tile.Path())
		data, err := tlog.ReadTileData(tile, reader)
		if err != nil {
			out.TileData = append(out.TileData, "error: "+err.Error())
		} else {
			out.TileData = append(out.TileData, base64.StdEncoding.EncodeToString(data))
		}
	}
	must(json.NewEncoder(os.Stdout).Encode(out))
}
