package state

import (
	"context"
	"database/sql"
	"sync/atomic"
	"time"
)

// The write-ahead log is copied into the database file (a checkpoint) in the background, by a
// connection of its own, rather than by the writer right after one of its commits: a checkpoint
// writes the pages the log holds into the database file and fsyncs it, and made on the writer it
// delayed every write queued behind it (the webhook deliveries waiting for their 200). The
// writer still checkpoints itself once the log holds walFallbackPages pages (SQLite's own
// automatic checkpoint): by then the background one has copied nearly all of it, and a
// checkpoint that reaches the end of the log lets the next commit start it over, so the log
// stays bounded during a flood that never pauses.
const (
	// checkpointEvery is the least time between two background checkpoints: the pages a flood
	// rewrites meanwhile (the tails of the indexes, the counts) are copied once.
	checkpointEvery = 100 * time.Millisecond
	// checkpointLazy is the most a checkpoint waits for checkpointCommits commits to gather: a
	// steady trickle (100 webhooks a second, one commit each) is copied once a second, not ten
	// times, each copy writing the same index tails again and fsyncing the database file.
	checkpointLazy = time.Second
	// checkpointCommits is how many commits start a checkpoint before checkpointLazy ends: a
	// flood is still copied every checkpointEvery, so the log stays short.
	checkpointCommits = 64
	// walFallbackPages is the writer's automatic checkpoint threshold (SQLite's default is 1000).
	walFallbackPages = 4000
)

// checkpointer runs PASSIVE checkpoints on its own connection after commits: once
// checkpointCommits commits gathered or checkpointLazy after the first of them, and at most
// one per checkpointEvery. A PASSIVE checkpoint waits for no reader or writer: it copies what
// it can.
type checkpointer struct {
	db      *sql.DB
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	commits atomic.Int64 // since the last checkpoint
	runs    atomic.Int64 // checkpoints run (tests)
}

// newCheckpointer opens the checkpointer's connection to file and starts it.
func newCheckpointer(file string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn(file, false))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	c := &checkpointer{db: db, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c, nil
}

// committed tells the checkpointer that the log grew; it never blocks.
func (c *checkpointer) committed() {
	if c == nil {
		return
	}
	// The checkpointer needs waking only for the first commit after a checkpoint (it starts
	// gathering) and when checkpointCommits gathered: not for each of a trickle's commits.
	if n := c.commits.Add(1); n != 1 && n != checkpointCommits {
		return
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop() {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.wake:
		}
		if !c.gather() {
			return
		}
		c.commits.Store(0)
		c.runs.Add(1)
		// A failure (another process checkpointing, a busy database) is left for the next
		// commit's try, or for the writer's own checkpoint.
		_, _ = c.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
		if !c.pause(checkpointEvery) {
			return
		}
	}
}

// gather waits, after a commit woke the checkpointer, until checkpointCommits commits gathered
// or checkpointLazy passed; it reports false when the checkpointer stops meanwhile.
func (c *checkpointer) gather() bool {
	t := time.NewTimer(checkpointLazy)
	defer t.Stop()
	for c.commits.Load() < checkpointCommits {
		select {
		case <-c.stop:
			return false
		case <-t.C:
			return true
		case <-c.wake:
		}
	}
	return true
}

// pause waits d; it reports false when the checkpointer stops meanwhile.
func (c *checkpointer) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.stop:
		return false
	case <-t.C:
		return true
	}
}

// close stops the checkpointer and closes its connection (the writer's close checkpoints the rest).
func (c *checkpointer) close() error {
	if c == nil {
		return nil
	}
	close(c.stop)
	<-c.done
	return c.db.Close()
}
