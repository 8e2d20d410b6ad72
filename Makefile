# Two entry points for a fresh machine: `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP_RUNTIME := $(VENV)/.runtime-installed
STAMP_DEV := $(VENV)/.dev-installed

.PHONY: demo test install train-deps clean

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP_RUNTIME): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP_RUNTIME) $@

install: $(STAMP_RUNTIME)

# Until recognition from footage lands, the demo scores a bundled scripted match.
demo: $(STAMP_RUNTIME)
	$(VENV)/bin/dominocast score examples/lisa-b-all-fives.yaml

test: $(STAMP_DEV)
	$(PY) -m pytest -q

# Optional: torch + ultralytics for `dominocast train` (several GB).
train-deps: $(STAMP_DEV)
	$(PY) -m pip install --quiet -e '.[dev,train]'

clean:
	rm -rf $(VENV) build *.egg-info
