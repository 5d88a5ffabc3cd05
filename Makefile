# CameraCore — the two commands a newcomer needs:
#   make run    install what is missing, build in release, run the main job
#   make test   install what is missing, check formatting, run every test
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
# Static Swift runtime: the command-line tools start ~20 ms faster, which shows in short jobs.
RELEASE := $(SWIFT) build -c release --static-swift-stdlib
SWIFT_FORMAT_PATHS := Sources Tests Package.swift

.PHONY: deps build run test lint format bench clean

deps:
	@scripts/install-deps.sh

# Our executables by name: a bare `swift build` may also build dependencies' dynamic-library products
# (GRDB-dynamic), which SwiftPM cannot link with --static-swift-stdlib (swift-package-manager#8198).
# The benchmark (and the test peers it runs) is built by `make bench` only.
PRODUCTS := cameracore cgame watchbox lebot cameracore-server

build: deps
	@for product in $(PRODUCTS); do $(RELEASE) --product $$product || exit 1; done

# The main job: the CameraCore server on http://127.0.0.1:8080 with SQLite in ./data and a demo login.
run: build
	.build/release/cameracore-server --port 8080 --data data --demo demo@cameracore.local:demo-password

lint:
	@$(SWIFT) format lint --strict --recursive $(SWIFT_FORMAT_PATHS) || \
		{ echo "Formatting errors: run 'make format' and commit the result." >&2; exit 1; }

format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_FORMAT_PATHS)

# OMP_THREAD_LIMIT=1: Tesseract's OpenMP threads slow small OCR crops ~3x (see TesseractRecognizer).
# Three runs so timing bounds measure the code, not contention on two cores: the rest in parallel;
# live peers (CameraIO's RTSP suite, WatchBox, the server with its PostgreSQL cluster and headless
# Chromium, LeBot's Gemini clients, CGame watching a live OpenArena match) one test at a time,
# since GStreamer encodes live video and the local Gemini server answers within client deadlines, and a
# loaded core drops frames or misses them; then CGame, whose OCR keeps both cores busy, beside LeBot's
# 3D court corpus, whose rendering does too. `lebot live` coached by the local Gemini server runs
# one at a time as well: the server answers from the test process, and the rim finder's tests
# beside it (optimised, see Package.swift) kept its threads busy past the client's deadline.
LIVE_PEERS = WatchBoxKitTests|RTSPTests|CameraServerTests|GeminiLiveTests|GeminiRESTTests|OpenArenaLiveTests|liveGivesEveryShotATipFromGeminiOrLocally
# Real phone videos (RealFootageTests) cannot be shipped: they are copied into .build/real-footage
# from clones of github.com/chonyy/AI-basketball-analysis and chrisalpuerto/Bball-shot-Detection
# when they are on this machine (in the tool library's mirror by default); the tests of any that
# could not be copied say they were skipped, and why.
REAL_FOOTAGE_MIRROR ?= /work/.mirror
test: deps lint
	@scripts/real-footage.sh .build/real-footage "$(REAL_FOOTAGE_MIRROR)" || echo "real footage: not every video could be copied from $(REAL_FOOTAGE_MIRROR) (REAL_FOOTAGE_MIRROR=...): the tests of those missing will be skipped"
	OMP_THREAD_LIMIT=1 scripts/test-stage.sh --skip CGameKitTests --skip CourtCorpusTests --skip '$(LIVE_PEERS)'
	scripts/test-stage.sh --skip-build --no-parallel --filter '$(LIVE_PEERS)'
	OMP_THREAD_LIMIT=1 scripts/test-stage.sh --skip-build --filter 'CGameKitTests|CourtCorpusTests' --skip OpenArenaLiveTests

bench: build
	$(RELEASE) --product cameracore-bench
	OMP_THREAD_LIMIT=1 .build/release/cameracore-bench

clean:
	rm -rf .build data bench-out
