.DEFAULT_GOAL := all
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help install format lint typecheck test testcov docs bench demo demo-mcp js e2e-deps mcp-servers pg-deps all chat chat-web chat-page screenshots

help: ## Show this help.
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

$(STAMP): Makefile pydantic_ai_slim/pyproject.toml examples/pyproject.toml requirements-dev.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e "./pydantic_ai_slim[openai,ui,anthropic,cli,web,dbos,mcp,otel]" -e ./examples -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP) ## Create .venv and install the packages and dev tools.

format: install ## Format the code with ruff.
	$(VENV)/bin/ruff format
	$(VENV)/bin/ruff check --fix

lint: install ## Check formatting and lint with ruff.
	$(VENV)/bin/ruff format --check
	$(VENV)/bin/ruff check

typecheck: install ## Type-check with pyright (strict on the package).
	$(VENV)/bin/pyright

test: lint typecheck js e2e-deps mcp-servers pg-deps ## Lint, type-check and run the test suite with coverage.
	$(PY) -m pytest --cov --cov-report=term-missing:skip-covered

testcov: install ## Run the tests and write an HTML coverage report.
	$(PY) -m pytest --cov --cov-report=html

docs: install ## Build the docs with mkdocs in strict mode.
	$(VENV)/bin/mkdocs build --strict

bench: install ## Run the benchmarks.
	$(PY) -m benchmarks
	$(PY) -m benchmarks.dbos
	$(PY) -m benchmarks.history

demo: install $(if $(findstring --mcp,$(ARGS)),mcp-servers) ## Run the approval CLI demo on the scripted model (ARGS=--mcp: on a real MCP filesystem server).
	$(PY) -m pydantic_ai_examples.approval $(ARGS)

demo-mcp: ## The approval demo on the reference MCP filesystem server in a sandbox directory (make demo ARGS=--mcp).
	$(MAKE) demo ARGS="--mcp $(ARGS)"

chat: install ## Chat with the scripted sysadmin in the terminal (Agent.to_cli).
	$(PY) -m pydantic_ai_examples.approval.chat

chat-web: install ## Serve the browser chat on the scripted file manager (Agent.to_web) at http://127.0.0.1:7932.
	$(VENV)/bin/pai-chat --web --agent pydantic_ai_examples.approval.chat:files_agent

JS_STAMP := tests/js/node_modules/.installed

$(JS_STAMP): tests/js/package.json tests/js/package-lock.json
	npm ci --prefix tests/js --no-audit --no-fund --ignore-scripts
	touch $(JS_STAMP)

js: $(JS_STAMP) ## Install the AI SDK packages the Vercel AI conformance test runs (needs node and npm).

MCP_STAMP := tests/mcp_servers/node_modules/.installed

$(MCP_STAMP): tests/mcp_servers/package.json tests/mcp_servers/package-lock.json
	npm ci --prefix tests/mcp_servers --no-audit --no-fund --ignore-scripts
	touch $(MCP_STAMP)

mcp-servers: $(MCP_STAMP) ## Install the reference MCP filesystem server the MCP tests and `make demo ARGS=--mcp` run.

E2E_STAMP := tests/e2e/node_modules/.installed
E2E_BUNDLE := tests/e2e/dist/main.js
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

$(E2E_STAMP): tests/e2e/package.json tests/e2e/package-lock.json
	npm ci --prefix tests/e2e --no-audit --no-fund --ignore-scripts
	touch $(E2E_STAMP)

$(E2E_BUNDLE): $(E2E_STAMP) tests/e2e/src/main.jsx tests/e2e/index.html
	npm run --prefix tests/e2e build

chat-page: $(E2E_STAMP) ## Rebuild the bundled chat page of Agent.to_web (committed; needs node and npm).
	node pydantic_ai_slim/chat-page/build.mjs

screenshots: install e2e-deps ## Retake the screenshots of docs/chat.md (needs tmux).
	$(PY) tests/e2e/screenshots.py

e2e-deps: $(E2E_BUNDLE) ## Install Debian's chromium if missing, the e2e page's npm packages, and build the page.
	command -v chromium >/dev/null || ($(SUDO) apt-get update && $(SUDO) apt-get install -y chromium)

pg-deps: ## Install Debian's PostgreSQL server if missing (the durable tests start a throwaway one as user postgres).
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || ($(SUDO) apt-get update && $(SUDO) apt-get install -y postgresql)

all: test docs ## Everything CI checks.
