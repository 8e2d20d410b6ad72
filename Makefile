# Two entry points for a fresh machine: `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP_RUNTIME := $(VENV)/.runtime-installed
STAMP_DEV := $(VENV)/.dev-installed

.PHONY: demo test bench install train-deps quantize-deps clean

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

# The main job on the bundled sample: review generated footage of a Lisa B. All Fives hand
# (examples/footage, seed 19) into events, a record, an annotated video and a report.
demo: $(STAMP_RUNTIME)
	$(VENV)/bin/dominocast review examples/footage/demo.mp4 --rules lisa-b-all-fives \
		--calibration examples/footage/profile.json --out demo-review

test: $(STAMP_DEV)
	$(PY) -m pytest -q

# Every speed and accuracy figure in docs/benchmarks.md, regenerated from one run: ~7 min on a quiet
# 2-core machine once the footage is rendered (data/bench/, ~8 min the first time). Sections:
# `.venv/bin/python -m bench --only speed,scaling`; a quick check: `... -m bench --smoke --out /tmp/b.md`.
# Uses ../shared/realdata when present; ultralytics rows need `make train-deps`.
bench: $(STAMP_DEV)
	$(PY) -m bench

# Optional: torch + ultralytics for `dominocast train` (several GB).
train-deps: $(STAMP_DEV)
	$(PY) -m pip install --quiet -e '.[dev,train]'

# Optional: onnx and sympy alone, for `dominocast train quantize` (no torch; train-deps includes them).
quantize-deps: $(STAMP_RUNTIME)
	$(PY) -m pip install --quiet -e '.[quantize]'

clean:
	rm -rf $(VENV) build *.egg-info
