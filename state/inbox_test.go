package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"pixdash/api"
)

func inboxPayload(id string) []byte {
	return []byte(`{"eventId":"` + id + `","event":"payment_completed","amount":1.00}`)
}

// drainInbox reads every waiting entry in batches of n, acknowledging each batch, and returns
// the payloads.
func drainInbox(t *testing.T, in *Inbox, n int) []string {
	t.Helper()
	var got []string
	for {
		b, err := in.Next(n)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if len(b.Raw) == 0 {
			return got
		}
		for _, r := range b.Raw {
			got = append(got, string(r))
		}
		if err := in.Done(b); err != nil {
			t.Fatalf("Done: %v", err)
		}
	}
}

func openTestInbox(t *testing.T, dir string) *Inbox {
	t.Helper()
	in, err := OpenInbox(dir, "p")
	if err != nil {
		t.Fatalf("OpenInbox: %v", err)
	}
	return in
}

func TestInboxRoundTrip(t *testing.T) {
	for _, mode := range []string{"file", "memory"} {
		t.Run(mode, func(t *testing.T) {
			var in *Inbox
			if mode == "file" {
				in = openTestInbox(t, t.TempDir())
			} else {
				in = MemoryInbox()
			}
			defer in.Close()
			pretty := []byte("{\n  \"eventId\": \"e-2\",\n  \"event\": \"payment_expired\"\n}")
			for _, raw := range [][]byte{inboxPayload("e-1"), pretty, inboxPayload("e-3")} {
				if err := in.Accept(raw); err != nil {
					t.Fatalf("Accept: %v", err)
				}
			}
			select {
			case <-in.Ready():
			default:
				t.Fatal("Ready not signalled after Accept")
			}
			got := drainInbox(t, in, 2)
			want := []string{string(inboxPayload("e-1")), "{   \"eventId\": \"e-2\",   \"event\": \"payment_expired\" }", string(inboxPayload("e-3"))}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("entries:\n%q\nwant\n%q", got, want)
			}
			b, _ := in.Next(0)
			evs, skipped := OpenMemory().InboxEvents(b)
			if len(evs) != 0 || skipped != 0 {
				t.Fatalf("after draining: %d events, %d skipped", len(evs), skipped)
			}
			if err := in.Sync(); err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if st := in.Stats(); st.Accepted != 3 || st.Synced != 3 || st.Pending != 0 {
				t.Fatalf("Stats = %+v", st)
			}
		})
	}
}

// Entries not acknowledged are read again after a restart; acknowledged ones are not.
func TestInboxReopenKeepsUnacknowledged(t *testing.T) {
	dir := t.TempDir()
	in := openTestInbox(t, dir)
	for i := range 5 {
		if err := in.Accept(inboxPayload(fmt.Sprint("e-", i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := drainInbox(t, in, 0); len(got) != 5 {
		t.Fatalf("first run read %d entries", len(got))
	}
	for i := 5; i < 8; i++ {
		if err := in.Accept(inboxPayload(fmt.Sprint("e-", i))); err != nil {
			t.Fatal(err)
		}
	}
	b, err := in.Next(2)
	if err != nil || len(b.Raw) != 2 {
		t.Fatalf("Next(2) = %d entries, %v", len(b.Raw), err)
	}
	if err := in.Close(); err != nil { // b never acknowledged: the app died while applying it
		t.Fatal(err)
	}
	in = openTestInbox(t, dir)
	defer in.Close()
	select {
	case <-in.Ready():
	default:
		t.Fatal("Ready not signalled for entries left by the last run")
	}
	b, err = in.Next(0)
	if err != nil {
		t.Fatal(err)
	}
	evs, skipped := OpenMemory().InboxEvents(b)
	var ids []string
	for _, ev := range evs {
		ids = append(ids, ev.EventID)
	}
	if got := strings.Join(ids, ","); got != "e-5,e-6,e-7" || skipped != 0 {
		t.Fatalf("after restart: %s (%d skipped), want e-5,e-6,e-7", got, skipped)
	}
}

func TestInboxConcurrentAcceptsKeepEveryEntryOnce(t *testing.T) {
	in := openTestInbox(t, t.TempDir())
	defer in.Close()
	const workers, each = 16, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if err := in.Accept(inboxPayload(fmt.Sprintf("w%d-%d", w, i))); err != nil {
					t.Errorf("Accept: %v", err)
					return
				}
			}
		})
	}
	// The consumer runs meanwhile, so the file is emptied while writers append.
	seen := map[string]int{}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	consume := func() {
		for _, raw := range drainInbox(t, in, 37) {
			seen[raw]++
		}
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-in.Ready():
		}
		consume()
	}
	consume()
	if len(seen) != workers*each {
		t.Fatalf("%d distinct entries, want %d", len(seen), workers*each)
	}
	for raw, n := range seen {
		if n != 1 {
			t.Fatalf("%s read %d times", raw, n)
		}
	}
	// Concurrent Accepts share writes (group commit).
	if st := in.Stats(); st.Writes >= st.Accepted {
		t.Errorf("%d writes for %d entries: no batching", st.Writes, st.Accepted)
	}
}

func TestInboxRecovery(t *testing.T) {
	line := func(id string) string { return string(appendInboxLine(nil, inboxPayload(id))) }
	cases := []struct {
		name    string
		file    string
		want    string // ids, comma-separated
		corrupt bool
	}{
		{"empty", "", "", false},
		{"whole", line("a") + line("b"), "a,b", false},
		{"torn last line", line("a") + line("b")[:20], "a", false},
		{"zeros after a crash", line("a") + "\x00\x00\x00\x00", "a", false},
		{"zeros after the last line", line("a") + line("b") + strings.Repeat("\x00", 4096), "a,b", false},
		{"a place never written", line("a") + strings.Repeat("\x00", len(line("b"))) + line("c"), "a,c", false},
		{"a copy cut short", line("a") + line("b")[:20] + strings.Repeat("\x00", len(line("b"))-20) + line("c"), "a,c", false},
		{"a copy with only its end", line("a") + strings.Repeat("\x00", 20) + line("b")[20:] + line("c"), "a,c", false},
		{"unfinished then torn", line("a") + "\x00\x00" + line("b") + line("c")[:10], "a,b", false},
		{"damaged middle line", line("a") + strings.Replace(line("b"), "1.00", "9.00", 1) + line("c"), "a,c", true},
		{"not a checksum", line("a") + "hello\n" + line("c") + line("d")[:5], "a,c", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "p.inbox")
			if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
				t.Fatal(err)
			}
			in, err := OpenInbox(dir, "p")
			var ce *CorruptError
			if errors.As(err, &ce) != c.corrupt || (err != nil && ce == nil) {
				t.Fatalf("OpenInbox error = %v, want corrupt %t", err, c.corrupt)
			}
			if c.corrupt {
				kept, rerr := os.ReadFile(ce.MovedTo)
				if rerr != nil || string(kept) != c.file {
					t.Fatalf("the damaged file was not kept as it was (%v)", rerr)
				}
				if !strings.Contains(ce.Error(), "undamaged records were kept") {
					t.Errorf("message %q", ce.Error())
				}
			}
			b, err := in.Next(0)
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := OpenMemory().InboxEvents(b)
			var ids []string
			for _, ev := range evs {
				ids = append(ids, ev.EventID)
			}
			if got := strings.Join(ids, ","); got != c.want {
				t.Fatalf("entries %q, want %q", got, c.want)
			}
			// New entries land after the recovered ones, and a second open finds nothing wrong.
			if err := in.Accept(inboxPayload("z")); err != nil {
				t.Fatal(err)
			}
			in.Close()
			in, err = OpenInbox(dir, "p")
			if err != nil {
				t.Fatalf("second open: %v", err)
			}
			defer in.Close()
			b, _ = in.Next(0)
			if n := len(b.Raw); n != len(evs)+1 {
				t.Fatalf("second open: %d entries, want %d", n, len(evs)+1)
			}
		})
	}
}

func TestInboxRefusals(t *testing.T) {
	dir := t.TempDir()
	in := openTestInbox(t, dir)
	if _, err := OpenInbox(dir, "p"); !errors.Is(err, ErrInboxBusy) {
		t.Errorf("second OpenInbox on a profile = %v, want ErrInboxBusy", err)
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if err := in.Accept(inboxPayload("late")); !errors.Is(err, ErrInboxClosed) {
		t.Errorf("Accept after Close = %v, want ErrInboxClosed", err)
	}
	again := openTestInbox(t, dir) // the lock went with Close
	again.Close()

	mem := MemoryInbox()
	big := bytes.Repeat([]byte("x"), 1<<20)
	var err error
	for range DefaultMemoryInboxLimit>>20 + 1 {
		if err = mem.Accept(big); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrInboxFull) || !errors.Is(err, api.ErrSinkFull) {
		t.Fatalf("Accept over the limit = %v, want ErrInboxFull (an api.ErrSinkFull)", err)
	}
	drainInbox(t, mem, 0)
	if err := mem.Accept(big); err != nil {
		t.Fatalf("Accept once drained = %v", err)
	}
}

// FuzzOpenInbox: any file content opens without panicking; what it yields opens again the same,
// undamaged, and every entry is one of the file's lines.
func FuzzOpenInbox(f *testing.F) {
	f.Add(appendInboxLine(appendInboxLine(nil, inboxPayload("a")), inboxPayload("b")))
	f.Add([]byte("00000000 {}\n"))
	f.Add([]byte("zz\n\n\x00"))
	f.Fuzz(func(t *testing.T, file []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "p.inbox"), file, 0o600); err != nil {
			t.Fatal(err)
		}
		in, err := OpenInbox(dir, "p")
		var ce *CorruptError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("OpenInbox: %v", err)
		}
		first, err := in.Next(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range first.Raw {
			if !bytes.Contains(file, raw) {
				t.Fatalf("entry %q not in the file", raw)
			}
		}
		in.Close()
		in, err = OpenInbox(dir, "p")
		if err != nil {
			t.Fatalf("second open: %v", err)
		}
		defer in.Close()
		second, _ := in.Next(0)
		if len(second.Raw) != len(first.Raw) {
			t.Fatalf("second open: %d entries, first %d", len(second.Raw), len(first.Raw))
		}
	})
}

func BenchmarkInboxAccept(b *testing.B) {
	in := openBenchInbox(b, b.TempDir())
	defer in.Close()
	raw := benchPayload(1)
	b.SetParallelism(32)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := in.Accept(raw); err != nil {
				b.Error(err)
				return
			}
		}
	})
	if err := in.Sync(); err != nil {
		b.Fatal(err)
	}
}
