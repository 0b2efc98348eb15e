# Two commands on a fresh machine: `make run` (start the app) and `make test` (run the tests).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint accuracy bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(PY) -P -m tuneplan

# two workers (pytest-xdist): the suite is mostly independent window and CLI tests, ~2.7 min instead of ~4.5 on 2 cores
test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n 2

# ruff, then the package boundaries: import-linter's contracts ([tool.importlinter] in pyproject.toml)
lint: $(STAMP)
	$(VENV)/bin/ruff check src tests
	$(VENV)/bin/lint-imports --no-cache

accuracy: $(STAMP)
	$(PY) ../shared/reference/score_accuracy.py --cmd "$(PY) -m tuneplan" > docs/accuracy-table.md.tmp
	mv docs/accuracy-table.md.tmp docs/accuracy-table.md
	$(PY) tools/score_with_seq_kind.py --cmd "$(PY) -m tuneplan" > docs/accuracy-table-seq-kind.md.tmp
	mv docs/accuracy-table-seq-kind.md.tmp docs/accuracy-table-seq-kind.md
	$(PY) tools/score_as_run.py --cmd "$(PY) -m tuneplan" > docs/accuracy-table-as-run.md.tmp
	mv docs/accuracy-table-as-run.md.tmp docs/accuracy-table-as-run.md
	$(PY) tools/time_accuracy.py --markdown docs/time-accuracy-table.md
	cat docs/accuracy-table.md

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) tools/benchmark.py --out docs/benchmarks.md

clean:
	rm -rf $(VENV) build dist

# `make validate` (issue #3): one real training step per case on fake tensors, measured by PyTorch's
# MemTracker, next to the ledger -> docs/validation/results.json and docs/validation.md. Uses its own
# venv (.venv-validate: torch CPU wheel, transformers, peft; never the app's), created when missing.
VALIDATE_VENV := .venv-validate
.PHONY: validate
validate:
	@test -x $(VALIDATE_VENV)/bin/python || $(PYTHON) -m venv $(VALIDATE_VENV)
	@test $(VALIDATE_VENV)/.installed -nt tools/validate/requirements.txt || \
		{ $(VALIDATE_VENV)/bin/python -m pip install --quiet -r tools/validate/requirements.txt -e . && touch $(VALIDATE_VENV)/.installed; }
	nice $(VALIDATE_VENV)/bin/python tools/validate/grid.py
	nice $(VALIDATE_VENV)/bin/python tools/validate/fsdp_cpu.py
	nice $(VALIDATE_VENV)/bin/python tools/validate/allocator.py

# Issue #3's evidence in one command: the score table against published measurements and the fake-tensor
# comparison with PyTorch's accounting (about 12 minutes on 2 cores).
.PHONY: evidence
evidence: accuracy validate

# Installers for this OS: the PyInstaller bundle, dist/*.tar.gz and dist/*.deb, smoke-tested (packaging/README.md).
.PHONY: package
package: $(STAMP)
	$(PY) -m pip install --quiet -e ".[package]"
	$(PY) packaging/build.py linux

# Real-GPU grid (issue #3): measure on a GPU machine with tools/gpu_grid/measure.py (docs/measurements/README.md),
# then `make gpu-grid-report RESULTS=<folder with env.json and gpu-grid.jsonl>` writes docs/measurements/.
.PHONY: gpu-grid-report
gpu-grid-report: $(STAMP)
	$(PY) tools/gpu_grid/gpu_report.py $(RESULTS)
