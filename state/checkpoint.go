package state

import (
	"context"
	"database/sql"
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
	// walFallbackPages is the writer's automatic checkpoint threshold (SQLite's default is 1000).
	walFallbackPages = 4000
)

// checkpointer runs PASSIVE checkpoints on its own connection after commits, at most one per
// checkpointEvery. A PASSIVE checkpoint waits for no reader or writer: it copies what it can.
type checkpointer struct {
	db   *sql.DB
	wake chan struct{}
	stop chan struct{}
	done chan struct{}
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
		// A failure (another process checkpointing, a busy database) is left for the next
		// commit's try, or for the writer's own checkpoint.
		_, _ = c.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
		t := time.NewTimer(checkpointEvery)
		select {
		case <-c.stop:
			t.Stop()
			return
		case <-t.C:
		}
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
