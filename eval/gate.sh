#!/usr/bin/env bash
# The retrieval regression gate CI runs: index the golden corpus with the
# shipped defaults and fail on recall@8 or MRR below the floors, on any chunk
# over the model window, or on any answer destroyed by chunking. The floors sit
# a few points under the measured values (recall@8 0.90, MRR 0.725 on
# 2026-12-04, int8, fusion by scores, 358 queries over 47 documents, dev and
# test splits together, docs/EVALUATION.md); the pipeline is deterministic, so a drop
# below them is a change in behaviour, not noise.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rp="${CARGO_TARGET_DIR:-target}/debug/ragpipe"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
"$rp" --data-dir "$data" ingest eval/corpus --quiet
# Abstention at the model's own threshold and margin rule (docs/EVALUATION.md
# "Abstention"): measured 49 of 358 answerable refused (13.7 %), 6 of 50
# out-of-domain answered (12 %); the issue's goal (<= 5 %, <= 10 %) is not
# reached by all-MiniLM-L6-v2, so this only guards against getting worse:
# one bluff and about five refusals of slack.
"$rp" --data-dir "$data" eval --golden eval/golden.jsonl --ood eval/ood.jsonl \
  --gate --min-recall-at-8 0.85 --min-mrr 0.70 --max-refused 0.15 --max-bluffs 0.14
# Row lookups whose key is written another way than the cell (eval/rows.jsonl,
# docs/EVALUATION.md "Row lookups by key"): measured recall@8 1.00, MRR 0.990 on 50 lookups (int8, fusion by scores, month keys; ties ranked by point id;
# a row's keys paired with its words since 2026-12-07: 0.980 before).
rows=$(mktemp -d)
es=$(mktemp -d)
mp=$(mktemp -d)
trap 'rm -rf "$data" "$rows" "$es" "$mp"' EXIT
"$rp" --data-dir "$rows" ingest eval/rows --quiet
"$rp" --data-dir "$rows" eval --golden eval/rows.jsonl --gate --min-recall-at-8 0.95 --min-mrr 0.95
# The same lookups of the same tables printed to PDF by Calc (eval/rows-pdf/,
# docs/EVALUATION.md "Tables on PDF pages"): measured recall@8 1.00, MRR 0.960
# with the tables read as rows under their header (extractor version 12);
# 1.000 since a row's keys are paired with its words (the symbol beside the date).
pdfrows=$(mktemp -d)
trap 'rm -rf "$data" "$rows" "$es" "$mp" "$pdfrows"' EXIT
"$rp" --data-dir "$pdfrows" ingest eval/rows-pdf --quiet
"$rp" --data-dir "$pdfrows" eval --golden eval/rows-pdf.jsonl --gate --min-recall-at-8 0.95 --min-mrr 0.95
# The Spanish set (eval/golden-es.jsonl over Debian's Spanish manuals) with
# the multilingual model (int8; BM25 reads each document in its own language).
# Since session u the model's spec cuts chunks to its window (512) and fuses
# by scores (dense 0.7): measured recall@8 0.86, MRR 0.691 (0.696 since a
# word's accent-free form is indexed too, session ac; 0.80 / 0.658 at
# budget 256 with rank fusion), so the floors rose from 0.76 / 0.63 to
# 0.81 / 0.66 (docs/EVALUATION.md "multilingual-e5-small at its window").
printf '[model]\nname = "multilingual-e5-small"\n' > "$es/ragpipe.toml"
"$rp" --config "$es/ragpipe.toml" --data-dir "$es" ingest eval/corpus-es --quiet
# Its abstention at the model's own threshold, by windows (docs/EVALUATION.md
# "Abstention"): at budget 512 int8's threshold is 0.146 (the largest answering
# at most 10 % of the out-of-domain questions), measured 5 of 132 answerable
# refused (3.8 %), 4 of 40 out-of-domain answered (10 %). On an AVX2-only
# AMD EPYC (Zen 3, no AVX-512, no VNNI; 2026-12-06, session x) the same
# build, before and after that session's changes, answers 6 of 40: the
# nearest windows of five out-of-domain questions sit between 0.1429 and
# 0.1447, under 0.146, and e5's distances move by a few thousandths between
# CPUs (docs/EVALUATION.md "Abstention"). The bluff ceiling holds the worst
# CPU measured; about three refusals of slack. Extractor version 10
# (session y: DocBook's navigation tables out of the pages) moves one
# out-of-domain question's window onto the threshold: 5 of 40 on a VNNI
# Xeon (docs/EVALUATION.md "A manual's navigation"). The issue's goal is
# <= 5 % and <= 10 %.
"$rp" --config "$es/ragpipe.toml" --data-dir "$es" eval --golden eval/golden-es.jsonl --ood eval/ood-es.jsonl \
  --gate --min-recall-at-8 0.81 --min-mrr 0.66 --max-refused 0.065 --max-bluffs 0.15
# The second Spanish set (eval/golden-es-books.jsonl: the Debian Edu manual
# as DBLaTeX's PDF and ten Publican HTML pages of the Debian Administrator's
# Handbook, written before anything was tuned on it; docs/EVALUATION.md "A
# second Spanish set"): measured recall@8 0.78, MRR 0.598, 4 of 88 refused
# (4.5 %), 5 of 40 out-of-domain answered (12.5 %) on a VNNI Xeon (extractor
# version 17); floors a few points under, two bluffs of slack for e5's
# distances between CPUs.
books=$(mktemp -d)
trap 'rm -rf "$data" "$rows" "$es" "$mp" "$pdfrows" "$books"' EXIT
"$rp" --config "$es/ragpipe.toml" --data-dir "$books" ingest eval/corpus-es-books --quiet
"$rp" --config "$es/ragpipe.toml" --data-dir "$books" eval --golden eval/golden-es-books.jsonl --ood eval/ood-es.jsonl \
  --gate --min-recall-at-8 0.74 --min-mrr 0.56 --max-refused 0.09 --max-bluffs 0.175
# The opt-in larger English model (all-mpnet-base-v2, int8, its own chunk
# budget 384, fusion weight 0.8 and abstention by windows at 0.60 from its
# spec; docs/EVALUATION.md "A larger English model"): measured with its 7-bit
# int8 graph (2026-12-05, AVX2) recall@8 0.95, MRR 0.775, 11 of 358
# answerable refused (3.1 %), 7 of 50 out-of-domain answered (14 %): about
# five refusals and one bluff of slack.
# The largest part of the gate by far, so CI leaves it out: ingest and eval
# of eval/corpus with a model 4x e5's compute (1,161 chunks, every
# question's windows embedded) took 3 + 3 min on a VNNI CPU but 19 min of
# ingest alone on the AVX2-only CPU of the CI run after 2026-12-05's session
# o, which ran CI past its 90 minutes twice (docs/EVALUATION.md "CI's
# time"). The model's own tests (shared/embed/tests/mpnet.rs,
# integration-tests/tests/models.rs) still run in CI; RAGPIPE_GATE_MPNET=1
# adds its gate, as before changing anything mpnet's floors guard.
if [[ "${RAGPIPE_GATE_MPNET:-0}" != 1 ]]; then
  echo "gate: all-mpnet-base-v2's gate not run (RAGPIPE_GATE_MPNET=1 runs it, about 6-25 min)" >&2
  exit 0
fi
printf '[model]\nname = "all-mpnet-base-v2"\n' > "$mp/ragpipe.toml"
"$rp" --config "$mp/ragpipe.toml" --data-dir "$mp" ingest eval/corpus --quiet
"$rp" --config "$mp/ragpipe.toml" --data-dir "$mp" eval --golden eval/golden.jsonl --ood eval/ood.jsonl \
  --gate --min-recall-at-8 0.92 --min-mrr 0.75 --max-refused 0.045 --max-bluffs 0.16
