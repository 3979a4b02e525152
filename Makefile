# Everything a developer or CI runs goes through these targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
ADDRESS ?= 127.0.0.1:50051
GAME ?= hearts
PROTO_BASE ?= main
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PROTO_SRC := $(shell find protos -name '*.proto')
GEN_ROOT := clients/python
GEN_STAMP := $(GEN_ROOT)/cardengine/.generated
VENV_STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed
BENCH_ARGS := $(if $(QUICK),--quick,)

.PHONY: help setup system-deps node-deps protos stubs-deps stubs stubs-check run test lint format play bench load golden clean

# Descriptions may name variables, e.g. $(ADDRESS): sed replaces each with its value here.
help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}' \
	  | sed -e '' $(foreach v,$(sort $(shell sed -nE 's/^[a-z-]+:.*## //p' $(MAKEFILE_LIST) | grep -oE '\$$\([A-Z_]+\)' | tr -d '$$()')),-e 's|$$($(v))|$(subst |,\|,$(subst &,\&,$($(v))))|g')

system-deps: ## install Debian packages that are missing (redis-server, python3-venv, nodejs, npm)
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

$(VENV_STAMP): pyproject.toml clients/python/pyproject.toml | system-deps
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	$(PY) -c 'import pathlib, sysconfig; pathlib.Path(sysconfig.get_paths()["purelib"], "cardengine-client-dev.pth").write_text(str(pathlib.Path("$(GEN_ROOT)").resolve()) + "\n")'
	touch $@

$(GEN_STAMP): $(PROTO_SRC) $(VENV_STAMP)
	rm -rf $(GEN_ROOT)/cardengine
	mkdir -p $(GEN_ROOT)/cardengine
	$(PY) -m grpc_tools.protoc -I protos \
	  --include_imports --include_source_info \
	  --descriptor_set_out=$(GEN_ROOT)/cardengine/descriptors.binpb \
	  --plugin=protoc-gen-mypy=$(VENV)/bin/protoc-gen-mypy \
	  --plugin=protoc-gen-mypy_grpc=$(VENV)/bin/protoc-gen-mypy_grpc \
	  --python_out=$(GEN_ROOT) --grpc_python_out=$(GEN_ROOT) \
	  --mypy_out=$(GEN_ROOT) --mypy_grpc_out=$(GEN_ROOT) $(PROTO_SRC)
	find $(GEN_ROOT)/cardengine -type d -exec touch {}/__init__.py \;
	touch $(GEN_ROOT)/cardengine/py.typed $@

setup: system-deps $(VENV_STAMP) $(GEN_STAMP) ## create the virtualenv and generate the stubs

protos: $(GEN_STAMP) ## generate Python stubs from protos/ (only when a .proto changed)

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

run: setup ## serve on $(ADDRESS); starts a Redis under var/ unless REDIS_URL is set
	$(PY) -m engine_service.devtools.run --address $(ADDRESS)

NODE_STAMP := clients/node/node_modules/.package-lock.json

$(NODE_STAMP): clients/node/package-lock.json | system-deps
	cd clients/node && npm ci --no-audit --no-fund

node-deps: $(NODE_STAMP) ## install the Node.js client's packages from its lockfile (npm ci)

test: setup node-deps ## run the whole test suite against real redis-server and gRPC servers
	$(PY) -m pytest

lint: setup ## ruff, mypy --strict, buf lint and buf breaking against the main branch
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy engine_service clients/python/cardengine_client
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

play: setup ## play $(GAME) in the terminal against bots (starts a local service unless ENGINE_ADDRESS is set)
	$(PY) -m engine_service.devtools.play --game $(GAME)

$(BENCH_STAMP): pyproject.toml $(VENV_STAMP)
	$(PY) -m pip install -q -e '.[dev,bench]'
	touch $@

bench: setup $(BENCH_STAMP) ## figures beside their floors into results/ (QUICK=1: a smoke run)
	$(PY) -m bench $(BENCH_ARGS)

load: setup ## load test: many clients play whole games, then every stored game is checked
	$(PY) -m bench.load $(BENCH_ARGS)

golden: setup ## rewrite tests/golden/ after an intended rules change
	$(PY) -m tests.golden.record

clean: ## remove the virtualenv, generated stubs and local data
	rm -rf $(VENV) $(GEN_ROOT)/cardengine var results clients/node/node_modules clients/*/generated
