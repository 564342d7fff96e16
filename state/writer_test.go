package state

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"pixdash/api"
)

// Writes made ready at the same instant (a flood's deliveries whose bodies were read together)
// share one commit: the first to reach the writer yields before it commits, so the others join
// its group. Without the yield it committed alone, and so did each one after it (issue 27: 40%
// of a flood's commits held a single event). One P makes the order of the goroutines the
// scheduler's, not the machine's.
func TestWritesReadyTogetherShareOneCommit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	s := OpenMemory()
	defer s.Close()
	const writers = 32
	es := make([]*api.Event, writers)
	for i := range es {
		es[i] = testEvent(t, fmt.Sprintf("together-%d", i), api.EventPaymentCompleted, fmt.Sprintf("tx-%d", i))
	}
	v0 := s.Version()
	start := make(chan struct{})
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for _, e := range es {
		wg.Go(func() {
			<-start
			_, err := s.ApplyEvent(ctx, e)
			errs <- err
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if commits := s.Version() - v0; commits > 2 {
		t.Fatalf("%d writes made ready together took %d commits, want 1 (at most 2)", writers, commits)
	}
	if page, err := s.EventWindow(ctx, EventQuery{}, 0, writers); err != nil || page.Total != writers {
		t.Fatalf("events stored: %+v, %v; want %d", page.Total, err, writers)
	}
}
