# pixdash: build, run and test targets. `make run` and `make test` are all a new machine needs.
GO        ?= go
BIN       := bin/pixdash
PKGS      := ./...
TOOLS     := $(CURDIR)/.tools
GOLANGCI_VERSION := v2.15.0
GOLANGCI  := $(TOOLS)/golangci-lint
FREEZE    := $(TOOLS)/freeze
SHOTS_TMP := $(CURDIR)/.tools/shots
FREEZE_FLAGS := --window=false --padding 24 --margin 0 --font.size 14 --line-height 1.2 --border.radius 8
FUZZTIME  ?= 30s # at least 10s: FuzzOpenJournal fsyncs on every input and times out under a shorter budget

.PHONY: all build run test bench scale lint fuzz screenshots clean tools

all: build

build:
	$(GO) build -o $(BIN) .

## run: build and start the dashboard (demo mode against the built-in sandbox when no config exists)
run: build
	./$(BIN) $(ARGS)

## test: vet, then every test with the race detector, then a short fuzz pass over each target's seed corpus
test:
	$(GO) vet $(PKGS)
	$(GO) test -race -count=1 -timeout 8m $(PKGS)

## bench: the performance targets (charges view, filter, events view, webhook receiver); the state
## benchmarks build a 100k-charge history once under $TMPDIR/pixdash-bench (a few minutes the first time)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 -timeout 40m ./ui/ ./state/ ./api/ | tee bench.out
	$(GO) test -run '^$$' -bench Hub -benchtime 5000x -count 1 -timeout 20m ./state/hub/ | tee -a bench.out

## scale: issue 27's targets at 1M charges + 100k events, and on a profile of 1M pending charges,
## the dashboard run under a pseudo-terminal (needs script(1) and sqlite3(1)); the profiles are
## generated once under ${PIXDASH_SCALE_DIR:-/tmp/pixdash-scale} (the first run takes about an hour)
scale:
	PIXDASH_SCALE=1 $(GO) test -run '^TestScale$$' -count=1 -v -timeout 4h ./state/

## fuzz: run every fuzz target for FUZZTIME each
fuzz:
	@$(GO) list $(PKGS) | while read -r pkg; do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

## lint: gofmt, vet and golangci-lint (installed at a pinned version into .tools/ from the Go module proxy)
lint: $(GOLANGCI)
	@out=$$(gofmt -l . | grep -v '^vendor/'); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GOLANGCI) run ./...

$(GOLANGCI):
	GOBIN=$(TOOLS) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)

$(FREEZE):
	cd screenshots/tools && GOFLAGS=-mod=mod $(GO) build -o $(FREEZE) github.com/charmbracelet/freeze

## screenshots: render the real dashboard (sandbox emulator, fixed clock, seeded ids) and convert with freeze
screenshots: $(FREEZE)
	rm -rf $(SHOTS_TMP) && mkdir -p $(SHOTS_TMP)
	PIXDASH_SCREENSHOTS=$(SHOTS_TMP) $(GO) test -count=1 -run '^TestScreenshots(Training)?$$' ./ui/
	cp $(SHOTS_TMP)/qr.code.txt screenshots/qr.code.txt
	cp $(SHOTS_TMP)/qr-80x24.code.txt screenshots/qr-80x24.code.txt
	cd $(SHOTS_TMP) && for f in *.ansi; do \
	  n=$${f%.ansi}; bg="#171717"; case $$n in *-light) bg="#FAFAFA";; esac; \
	  $(FREEZE) $$f --language ansi -o $(CURDIR)/screenshots/$$n.png --background "$$bg" $(FREEZE_FLAGS) >/dev/null || exit 1; \
	done
	$(GO) test -count=1 -run '^TestScreenshotQRsDecode$$' ./ui/

tools: $(GOLANGCI) $(FREEZE)

clean:
	rm -rf bin bench.out
