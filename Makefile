# Everything a developer or CI runs goes through these targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# Settings of make run: each is both a make variable (make run ENGINE_WEB_PORT=8081) and the
# environment variable of the same name, which the server reads. make help lists them (#> lines).
#> ENGINE_ADDRESS         host:port of the gRPC port (make run: 127.0.0.1:50051)
#> ENGINE_WEB_PORT        the browser table, Connect and gRPC-Web, on ENGINE_ADDRESS's host (make run: 8080)
#> ENGINE_METRICS_PORT    Prometheus metrics of the first server process, +1 for each next (9464)
#> REDIS_URL              the Redis to use (unset: make run starts one under var/redis)
#> ENGINE_LOCAL_REDIS_PORT  the port of that local Redis (6390)
#> GAME, BOTS, PARTNER    make play's game and bot levels (LANGUAGE=fr: its words); QUICK=1 and BASELINE=<commit> for benchmarks
ENGINE_ADDRESS ?= 127.0.0.1:50051
ENGINE_WEB_PORT ?= 8080
GAME ?= hearts
PROTO_BASE ?= main
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PROTO_SRC := $(shell find protos -name '*.proto' | sort)
PUBLIC_PROTOS := $(filter protos/cardengine/v1/%,$(PROTO_SRC))
INTERNAL_PROTOS := $(filter protos/cardengine/internal/%,$(PROTO_SRC))
# Generated stubs are committed (clients/python/README.md says why): the public ones in the
# client package, the internal snapshot ones (Redis records, never sent) in the server's.
CLIENT_GEN := clients/python/cardengine
SERVER_GEN := engine_service/storage_pb
GEN_STAMP := $(VENV)/.protos-generated
VENV_STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed
BENCH_ARGS := $(if $(QUICK),--quick,)
TOURNAMENT_SECONDS ?= 5400
# The rules mypyc compiles in place (build_compiled.py lists what it leaves out and why).
COMPILED_SRC := $(shell find engine_service/core engine_service/games engine_service/bots engine_service/codec -name '*.py' | sort) build_compiled.py
COMPILED_STAMP := $(VENV)/.compiled

.PHONY: help setup docs docs-serve lock test-deep compiled system-deps browser-deps node-deps web screenshots protos protos-check stubs-deps stubs stubs-check run test lint format play bench load faults golden tournament capacity clean

# Descriptions may name variables, e.g. $(ENGINE_ADDRESS): sed replaces each with its value here.
help: ## list the targets and the settings
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}' \
	  | sed -e '' $(foreach v,$(sort $(shell sed -nE 's/^[a-z-]+:.*## //p' $(MAKEFILE_LIST) | grep -oE '\$$\([A-Z_]+\)' | tr -d '$$()')),-e 's|$$($(v))|$(subst |,\|,$(subst &,\&,$($(v))))|g')
	@echo; echo "Settings (make run ENGINE_WEB_PORT=8081, or the environment variable of the same name):"
	@sed -nE 's/^#> /  /p' $(MAKEFILE_LIST)

system-deps: ## install Debian packages that are missing (redis-server, python3-venv, python3-dev and gcc for mypyc, nodejs, npm, curl and jq for the README's HTTP session)
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	command -v curl >/dev/null || missing="$$missing curl"; \
	command -v jq >/dev/null || missing="$$missing jq"; \
	$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || missing="$$missing python3-venv"; \
	command -v gcc >/dev/null || missing="$$missing gcc"; \
	$(PYTHON) -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
	  || missing="$$missing python3-dev"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

# $(call quietly,what it does,log,command): one line on the terminal and the command's output
# in build/<log>.log; on failure the log's tail is shown. A first make run or make test stays
# a few lines long.
define quietly
	@mkdir -p build; echo "$(1) (output in build/$(2).log)"; \
	( $(3) ) > build/$(2).log 2>&1 || { tail -n 40 build/$(2).log; exit 1; }
endef

# Python packages: exactly what uv.lock says (uv sync --frozen also removes what it does not
# list), the server and the client editable. uv itself is pinned and lives in $(TOOLS).
TOOLS ?= .tools
UV_VERSION := $(shell sed -nE 's/^required-version = "==([0-9.]+)"/\1/p' pyproject.toml)
UV := $(TOOLS)/bin/uv
UV_STAMP := $(TOOLS)/.uv-$(UV_VERSION)
UV_ENV := UV_PROJECT_ENVIRONMENT=$(VENV) UV_PYTHON=$(PYTHON) UV_PYTHON_DOWNLOADS=never
SYNC := $(UV_ENV) $(UV) sync --frozen --quiet

$(UV_STAMP): | system-deps
	$(call quietly,installing uv $(UV_VERSION) into $(TOOLS),uv,$(PYTHON) -m venv $(TOOLS) && $(TOOLS)/bin/python -m pip install -q uv==$(UV_VERSION))
	@touch $@

$(VENV_STAMP): uv.lock pyproject.toml clients/python/pyproject.toml $(UV_STAMP)
	$(call quietly,installing the Python packages of uv.lock into $(VENV),uv-sync,$(SYNC) --extra dev)
	@rm -f $(BENCH_STAMP)
	@touch $@

lock: $(UV_STAMP) ## refresh uv.lock to the newest versions pyproject.toml allows (then make test, commit)
	$(UV_ENV) $(UV) lock --upgrade

# $(call gen_protos,DIR): every stub into DIR/cardengine (the client's package) and
# DIR/storage_pb (the server's), with the pinned grpcio-tools and mypy-protobuf of .venv.
# The internal files are compiled as cardengine/internal/v1 (their names in the descriptor
# pool stay the same) and their imports are then pointed at engine_service.storage_pb.
define gen_protos
	set -euo pipefail; out="$(1)"; rm -rf "$$out"; mkdir -p "$$out/cardengine" "$$out/internal"; \
	plugins=(--plugin=protoc-gen-mypy=$(VENV)/bin/protoc-gen-mypy --plugin=protoc-gen-mypy_grpc=$(VENV)/bin/protoc-gen-mypy_grpc); \
	$(PY) -m grpc_tools.protoc -I protos "$${plugins[@]}" \
	  --include_imports --include_source_info --descriptor_set_out="$$out/cardengine/descriptors.binpb" \
	  --python_out="$$out" --grpc_python_out="$$out" --mypy_out="$$out" --mypy_grpc_out="$$out" \
	  $(PUBLIC_PROTOS); \
	$(PY) -m grpc_tools.protoc -I protos "$${plugins[@]}" \
	  --python_out="$$out/internal" --mypy_out="$$out/internal" $(INTERNAL_PROTOS); \
	mv "$$out/internal/cardengine/internal/v1" "$$out/storage_pb"; rm -rf "$$out/internal"; \
	sed -i -E 's/cardengine\.internal\.v1( import|\.[a-z0-9_]+_pb2)/engine_service.storage_pb\1/g' \
	  "$$out"/storage_pb/*.py "$$out"/storage_pb/*.pyi; \
	touch "$$out/cardengine/__init__.py" "$$out/cardengine/v1/__init__.py" \
	  "$$out/cardengine/py.typed" "$$out/storage_pb/__init__.py"
endef

$(GEN_STAMP): $(PROTO_SRC) $(VENV_STAMP)
	$(call quietly,generating the protobuf stubs,protos,$(MAKE) --no-print-directory protos)
	@touch $@

setup: system-deps $(VENV_STAMP) $(GEN_STAMP) $(COMPILED_STAMP) ## create the virtualenv, generate the stubs, compile the rules

# One build at a time (make run may have one going in the background): the lock serialises
# them, and a build that finds every module already compiled by the other does nothing.
# Its output (a few hundred lines) goes to build/compiled.log; a failure shows the tail.
COMPILED_LOG := build/compiled.log
$(COMPILED_STAMP): $(COMPILED_SRC) $(VENV_STAMP)
	$(call quietly,compiling the rules with mypyc (minutes the first time),compiled,flock build/compile.lock $(PY) build_compiled.py --if-stale)
	@touch $@

compiled: $(COMPILED_STAMP) ## compile core, games, bots and codec with mypyc in place (CARDENGINE_PURE=1 ignores the .so)

protos: $(VENV_STAMP) ## regenerate the committed Python stubs from protos/ (client and server)
	$(call gen_protos,$(VENV)/protos-tmp)
	rm -rf $(CLIENT_GEN) $(SERVER_GEN)
	mv $(VENV)/protos-tmp/cardengine $(CLIENT_GEN)
	mv $(VENV)/protos-tmp/storage_pb $(SERVER_GEN)
	rm -rf $(VENV)/protos-tmp
	touch $(GEN_STAMP)

protos-check: $(VENV_STAMP) ## fail if the committed stubs differ from what protos/ generates now
	$(call gen_protos,$(VENV)/protos-check)
	@if diff -r -x __pycache__ $(VENV)/protos-check/cardengine $(CLIENT_GEN) \
	    && diff -r -x __pycache__ $(VENV)/protos-check/storage_pb $(SERVER_GEN); then \
	  rm -rf $(VENV)/protos-check; echo "generated stubs match protos/"; \
	else \
	  rm -rf $(VENV)/protos-check; echo "generated stubs are out of date: run make protos and commit them" >&2; exit 1; \
	fi

STUB_LANGS ?= cpp ruby php go java csharp objc
STUB_PACKAGES := protobuf-compiler protobuf-compiler-grpc protoc-gen-go protoc-gen-go-grpc \
  protobuf-compiler-grpc-java-plugin pkg-config g++ libgrpc++-dev libprotobuf-dev ruby ruby-grpc \
  php-cli golang-go golang-google-grpc-dev golang-google-protobuf-dev default-jdk-headless \
  libgrpc-java libprotobuf-java libgeronimo-annotation-1.3-spec-java

stubs-deps: ## install protoc, Debian's gRPC plugins and the toolchains stubs-check uses
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(STUB_PACKAGES)

stubs: ## generate client stubs for other languages (STUB_LANGS) into clients/<lang>/generated
	clients/stubs.sh generate $(STUB_LANGS)

stubs-check: stubs ## compile or load the generated stubs (C++, Ruby, PHP, Go, Java)
	clients/stubs.sh check $(STUB_LANGS)

# The documentation site (mkdocs.yml): the API reference is generated from the protos first.
DOCS_PORT ?= 8000
docs: $(VENV_STAMP) ## build the documentation site into site/ (MkDocs, --strict: a broken link fails)
	$(PY) -m engine_service.devtools.api_reference --out docs/reference.md
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
	@echo "built site/index.html"

docs-serve: $(VENV_STAMP) ## serve the documentation site on http://127.0.0.1:$(DOCS_PORT)/ while editing
	$(PY) -m engine_service.devtools.api_reference --out docs/reference.md
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

# make run does not wait for the compiled rules: while they are missing or older than their
# sources it serves from the sources (engine_service/__init__.py) and builds them in the
# background, in a session of its own so that Ctrl-C leaves the build going; the next start
# uses them.
run: system-deps $(VENV_STAMP) $(GEN_STAMP) web ## serve gRPC on $(ENGINE_ADDRESS) and the browser table on port $(ENGINE_WEB_PORT); starts a Redis under var/ unless REDIS_URL is set
	@$(MAKE) --no-print-directory -q $(COMPILED_STAMP) || { \
	  echo "serving the rules from their sources while mypyc compiles them in the background"; \
	  echo "(output in $(COMPILED_LOG)); the next make run uses the compiled rules"; \
	  setsid $(MAKE) --no-print-directory $(COMPILED_STAMP) > /dev/null 2>&1 < /dev/null & }
	@ENGINE_ADDRESS=$(ENGINE_ADDRESS) ENGINE_WEB_PORT=$(ENGINE_WEB_PORT) $(PY) -m engine_service.devtools.run

# The browser table: web/ bundled by esbuild into web/dist (messages from protos/ via buf).
WEB_MODULES := web/node_modules/.package-lock.json
WEB_BUNDLE := web/dist/app.js
WEB_SRC := $(wildcard web/src/*.ts web/src/*.html web/src/*.css web/proto/google/rpc/*.proto) \
  web/package.json web/buf.gen.yaml web/tsconfig.json \
  clients/text/events.json clients/node/lib/events.js clients/node/lib/events.d.ts

$(WEB_MODULES): web/package-lock.json | system-deps
	$(call quietly,installing the page's packages (npm ci),web-npm,cd web && npm ci --no-audit --no-fund)

$(WEB_BUNDLE): $(WEB_MODULES) $(WEB_SRC) $(PUBLIC_PROTOS) | $(VENV_STAMP)
	$(call quietly,bundling the browser table (buf generate + tsc + esbuild),web-build,cd web && PATH="$(abspath $(VENV)/bin):$$PATH" npm run build)

web: $(WEB_BUNDLE) ## bundle the browser table's page into web/dist (npm ci in web/, buf generate, tsc, esbuild)

browser-deps: ## install Debian's chromium and chromium-driver when missing (the browser tests use them)
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	[ -x /usr/bin/chromedriver ] || missing="$$missing chromium-driver"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

screenshots: setup web browser-deps ## play each game in headless chromium, screenshots into results/screenshots
	WEB_SCREENSHOTS=results/screenshots $(PY) -m pytest tests/web -q

NODE_STAMP := clients/node/node_modules/.package-lock.json

$(NODE_STAMP): clients/node/package-lock.json | system-deps
	$(call quietly,installing the Node.js client's packages (npm ci),node-npm,cd clients/node && npm ci --no-audit --no-fund)

node-deps: $(NODE_STAMP) ## install the Node.js client's packages from its lockfile (npm ci)

# First that the venv holds exactly uv.lock; then the whole suite on the compiled rules, then
# the conformance suite again on the sources, with the docstring examples (mypyc keeps no
# docstrings). Volume tests play their quick share here (tests/volume.py); test-deep plays
# them in full. TEST_WORKERS pytest-xdist workers share the tests (each starts its own servers).
TEST_WORKERS ?= 3
XDIST := -n $(TEST_WORKERS)
test: setup node-deps web browser-deps ## the whole suite, volume tests at their quick share ($(TEST_WORKERS) workers)
	$(PY) -m pytest -q tests/test_installed_packages.py
	$(PY) -m pytest $(XDIST) -m "not deep" --ignore=tests/test_installed_packages.py
	CARDENGINE_PURE=1 $(PY) -m pytest $(XDIST) -m "not deep" tests/conformance tests/test_doctests.py

test-deep: setup node-deps web browser-deps ## the volume tests in full: every conformance game, the service leak checks and fuzzing at length, many examples
	CARDENGINE_DEEP=1 $(PY) -m pytest $(XDIST) -m "volume or deep"

lint: setup protos-check ## uv.lock matches pyproject.toml, stubs up to date, ruff, mypy --strict (engine_service, the Python client, bench), buf lint, buf breaking against main
	$(UV_ENV) $(UV) lock --check --offline
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy engine_service clients/python/cardengine_client bench
	$(VENV)/bin/buf lint protos
	@if git rev-parse -q --verify refs/heads/$(PROTO_BASE) >/dev/null; then \
	  echo "buf breaking protos against branch $(PROTO_BASE)"; \
	  $(VENV)/bin/buf breaking protos --against '.git#branch=$(PROTO_BASE),subdir=protos'; \
	else \
	  echo "buf breaking skipped: no local branch $(PROTO_BASE) to compare protos/ with"; \
	fi

format: setup ## apply ruff's fixes and formatting
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

play: setup ## play $(GAME) in the terminal against bots (BOTS=, PARTNER= levels, LANGUAGE=; starts a local service unless ENGINE_ADDRESS is set)
	$(PY) -m engine_service.devtools.play --game $(GAME) $(if $(BOTS),--bots $(BOTS)) $(if $(PARTNER),--partner $(PARTNER)) $(if $(LANGUAGE),--language $(LANGUAGE))

$(BENCH_STAMP): $(VENV_STAMP)
	$(SYNC) --extra dev --extra bench
	touch $@

# The peers bench's part runs beside the engine (bench/peers: boardgame.io, Colyseus): its own
# packages, from its lockfile, installed when the lockfile is newer than what is installed.
PEERS_MODULES := bench/peers/node_modules/.package-lock.json

$(PEERS_MODULES): bench/peers/package-lock.json | system-deps
	$(call quietly,installing the peers benchmark's packages (npm ci),peers-npm,cd bench/peers && npm ci --no-audit --no-fund)

bench: setup $(BENCH_STAMP) $(PEERS_MODULES) ## figures beside their floors into results/, the engine beside boardgame.io and Colyseus too (QUICK=1: a smoke run)
	$(PY) -m bench $(BENCH_ARGS)

tournament: setup $(BENCH_STAMP) ## duplicate bot tournaments, Hearts against OpenSpiel's ISMCTS, goals into results/tournament.md (QUICK=1: a few hands; at most $(TOURNAMENT_SECONDS) s)
	$(PY) -m bench.tournament $(BENCH_ARGS) --seconds $(TOURNAMENT_SECONDS)

# A baseline commit is checked out into its own worktree and run from its sources, so each
# figure stands beside the same figure of that commit, measured in the same run.
BASELINE ?=
BASELINE_TREE := var/baseline
# The baseline runs with its own locked dependencies (an older commit may need packages this
# one dropped), in its own .venv: bench.servers.tree_python picks that interpreter.
BASELINE_SYNC := UV_PROJECT_ENVIRONMENT=.venv UV_PYTHON=$(PYTHON) UV_PYTHON_DOWNLOADS=never \
  $(abspath $(UV)) sync --frozen --quiet --no-install-project
capacity: setup $(BENCH_STAMP) ## Redis Cluster spread at 3/6/12/24 masters, a master added and drained under load, hot keys, the timer loops' cost, and docs/capacity.md (BASELINE=<commit> measures it too; QUICK=1)
	$(PY) -m bench.spread $(BENCH_ARGS)
	@if [ -n "$(BASELINE)" ]; then rm -rf $(BASELINE_TREE); git worktree prune; \
	  git worktree add --detach $(BASELINE_TREE) $(BASELINE) && \
	  cd $(BASELINE_TREE) && $(BASELINE_SYNC); fi
	$(PY) -m bench.timer_share $(BENCH_ARGS) $(if $(BASELINE),--baseline-tree $(BASELINE_TREE))
	$(PY) -m bench.capacity $(BENCH_ARGS) $(if $(BASELINE),--baseline-tree $(BASELINE_TREE))
	@if [ -n "$(BASELINE)" ]; then git worktree remove --force $(BASELINE_TREE); fi

load: setup ## load test: many clients play whole games, then every stored game is checked
	$(PY) -m bench.load $(BENCH_ARGS)

faults: setup ## kill -9 and freeze Redis (each durability setting), kill an engine, a Sentinel and a Cluster master under load; report what was lost
	$(PY) -m engine_service.devtools.faults --output results/faults.md

golden: setup ## rewrite tests/golden/ after an intended rules change (REPLAY=1: keep the recorded moves, re-render what the views show)
	$(PY) -m tests.golden.record $(if $(REPLAY),--replay)

clean: ## remove the virtualenv, build output (the compiled rules too) and local data (the committed stubs stay)
	find engine_service -name '*.so' -delete
	rm -rf $(VENV) $(TOOLS) var results build site docs/reference.md clients/python/build clients/node/node_modules clients/*/generated web/node_modules web/dist web/src/gen bench/peers/node_modules
