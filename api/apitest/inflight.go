package apitest

import (
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// InFlight wraps h so that every request whose path ends in suffix is held for hold before h
// answers it (callers without a bound would pile up meanwhile); peak reports the most such
// requests in flight at once.
func InFlight(h http.Handler, suffix string, hold time.Duration) (wrapped http.Handler, peak func() int32) {
	var now, most atomic.Int32
	wrapped = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, suffix) {
			n := now.Add(1)
			for {
				p := most.Load()
				if n <= p || most.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(hold)
			defer now.Add(-1)
		}
		h.ServeHTTP(w, r)
	})
	return wrapped, most.Load
}
