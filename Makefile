# Everything a developer or CI runs goes through these targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
ADDRESS ?= 127.0.0.1:50051
GAME ?= hearts
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PROTO_SRC := $(shell find protos -name '*.proto')
GEN_ROOT := clients/python
GEN_STAMP := $(GEN_ROOT)/cardengine/.generated
VENV_STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed
BENCH_ARGS := $(if $(QUICK),--quick,)

.PHONY: help setup system-deps protos run test lint format play bench load golden clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

system-deps: ## install Debian packages that are missing (redis-server, python3-venv)
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
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
	$(PY) -m grpc_tools.protoc -I protos \
	  --plugin=protoc-gen-mypy=$(VENV)/bin/protoc-gen-mypy \
	  --plugin=protoc-gen-mypy_grpc=$(VENV)/bin/protoc-gen-mypy_grpc \
	  --python_out=$(GEN_ROOT) --grpc_python_out=$(GEN_ROOT) \
	  --mypy_out=$(GEN_ROOT) --mypy_grpc_out=$(GEN_ROOT) $(PROTO_SRC)
	find $(GEN_ROOT)/cardengine -type d -exec touch {}/__init__.py \;
	touch $(GEN_ROOT)/cardengine/py.typed $@

setup: system-deps $(VENV_STAMP) $(GEN_STAMP) ## create the virtualenv and generate the stubs

protos: $(GEN_STAMP) ## generate Python stubs from protos/ (only when a .proto changed)

run: setup ## serve on $(ADDRESS); starts a Redis under var/ unless REDIS_URL is set
	$(PY) -m engine_service.devtools.run --address $(ADDRESS)

test: setup ## run the whole test suite against real redis-server and gRPC servers
	$(PY) -m pytest

lint: setup ## ruff, mypy --strict and buf lint
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy engine_service clients/python/cardengine_client
	$(VENV)/bin/buf lint protos

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
	rm -rf $(VENV) $(GEN_ROOT)/cardengine var results
