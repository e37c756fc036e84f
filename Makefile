# Shiying Core — front door. SwiftPM is the build; `swift build` / `swift test`
# work without make. These targets add set-up, warnings, sanitizers and fuzzers.

SWIFT       ?= $(shell command -v swift || echo /opt/swift/usr/bin/swift)
CLANG       ?= $(shell command -v /opt/swift/usr/bin/clang || command -v clang)
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# C warnings for the engine; -O2 even in debug so tests run the real hot loops.
CFLAGS_SWIFT = -Xcc -Wall -Xcc -Wextra -Xcc -Wno-unused-parameter -Xcc -O2
FUZZ_SECONDS ?= 60
FUZZ_CLI_MINUTES ?= 30
# Swift links ASan; UBSan instruments the C engine (its handlers ship in the ASan runtime).
SANITIZE     = --scratch-path .build/sanitize --sanitize=address \
               -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined
OUT         ?= out

APT_PACKAGES = pkg-config libjpeg62-turbo-dev libheif-dev libx265-dev libavcodec-dev libavutil-dev \
               zlib1g-dev liblcms2-dev libsqlite3-dev \
               libimage-exiftool-perl ffmpeg libheif-examples imagemagick libvips-tools libjpeg-turbo-progs \
               python3 python3-pip tesseract-ocr tesseract-ocr-chi-sim gcc

.PHONY: deps build release test api-client docs sanitize tsan fuzz fuzz-cli bench demo cli-docs man clean

## deps: every build dependency and the outside validators (Debian 12)
deps:
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_PACKAGES)
	python3 -m pip install -q pyvips dateparser imagehash pillow-heif || echo "pyvips/dateparser/imagehash/pillow-heif not installed: the benchmark's pyvips row, dateparser ratio and imagehash row, and the colour oracle tests, will be skipped"
	python3 -m pip install -q imagecodecs || echo "imagecodecs not installed: the libultrahdr reader test will be skipped"

build:
	$(SWIFT) build $(CFLAGS_SWIFT)

release:
	$(SWIFT) build -c release

## test: the whole suite (C API, facade, CLI, memory budgets, corpus)
test:
	$(SWIFT) build $(CFLAGS_SWIFT) --product shiying
	$(SWIFT) test $(CFLAGS_SWIFT)
	$(MAKE) api-client

## api-client: the separate app in Tests/APIClientApp (public async API only) on generated inputs
API_WORK = .build/api-client
api-client:
	$(SWIFT) build $(CFLAGS_SWIFT) --product shiying
	rm -rf $(API_WORK) && mkdir -p $(API_WORK)
	.build/debug/shiying sample-photos --count 1 --seed 3 --width 4032 --height 3024 -o $(API_WORK)/photo
	.build/debug/shiying sample-photos --live --count 1 --seed 3 --width 360 --height 480 --frames 90 -o $(API_WORK)/live
	cd Tests/APIClientApp && $(SWIFT) build $(CFLAGS_SWIFT)
	Tests/APIClientApp/.build/debug/APIClientApp $(API_WORK)/photo/sample-0001.jpg \
	  $(API_WORK)/live/LIVE_0001.JPG $(API_WORK)/live/LIVE_0001.MOV $(API_WORK)/work

## docs: DocC archives for ShiyingCore, Shiying and ShiyingLibrary in .build/docs (offline); fails on an undocumented public symbol
docs:
	$(SWIFT) build $(CFLAGS_SWIFT) --target Shiying
	$(SWIFT) build $(CFLAGS_SWIFT) --target ShiyingLibrary
	scripts/docs.sh

## sanitize: ASan + UBSan build of the engine, C API tests, and the CLI over hostile inputs
sanitize:
	$(SWIFT) build $(SANITIZE) --product shiying
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test $(SANITIZE) --filter CShiyingTests  # XCTest itself leaks 144 B
	SHIYING_BIN=$$($(SWIFT) build $(SANITIZE) --show-bin-path)/shiying \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 scripts/sanitize-run.sh

## tsan: ThreadSanitizer over the HEIF writer's tile lanes (encoders on threads of their own)
tsan:
	scripts/tsan.sh

## fuzz: libFuzzer harnesses for the JPEG and PNG readers (FUZZ_SECONDS each)
fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

## fuzz-cli: mutated corpus files through every read path of the CLI (ASan/UBSan build), FUZZ_CLI_MINUTES long
fuzz-cli:
	$(SWIFT) build $(SANITIZE) --product shiying
	python3 scripts/fuzz-cli.py --minutes $(FUZZ_CLI_MINUTES) --bin $$($(SWIFT) build $(SANITIZE) --show-bin-path)/shiying

## bench: strip-wise vs naive vs ImageMagick vs vips, N = 7, 20, 50
bench:
	$(SWIFT) run -c release Benchmarks

## demo: sample photos -> a long image and a grid collage in ./out/
demo: release
	.build/release/shiying sample-photos --count 7 --seed 1 -o $(OUT)/samples
	.build/release/shiying collage --layout long --width 1080 -o $(OUT)/long.jpg $(OUT)/samples/*.jpg
	.build/release/shiying collage --layout grid --width 1080 -o $(OUT)/grid.jpg $(OUT)/samples/*.jpg
	.build/release/shiying sample-photos --live --count 4 --seed 1 --width 240 --height 320 -o $(OUT)/live-samples
	.build/release/shiying collage --layout grid --width 480 --motion together --export live --name moving \
		-o $(OUT) $(OUT)/live-samples/*.JPG
	@echo "demo: wrote $(OUT)/long.jpg, $(OUT)/grid.jpg and the Live collage $(OUT)/moving.jpg + $(OUT)/moving.mov"

## cli-docs: README's CLI reference and docs/shiying.1, generated from the option tables (the drift test checks both)
cli-docs:
	$(SWIFT) build $(CFLAGS_SWIFT) --product shiying
	scripts/cli-docs.sh

## man: the man page docs/shiying.1 (and README's CLI reference with it)
man: cli-docs

clean:
	rm -rf .build $(OUT)
