#!/bin/bash
# Issue 31: the new model calls on the local model, for a blind judge.
set -x
Z="/work/main/.venv/bin/zettelgraph --home /tmp/l31/home --llm local"
export ZETTELGRAPH_LOCAL_THREADS=1 OMP_NUM_THREADS=1
cd /tmp/l31
$Z ingest doc.md --json > ingest_doc.json 2> ingest_doc.err
CID=$(/work/main/.venv/bin/python -c "import json;print(json.load(open('ingest_doc.json'))['contents'][0]['id'])")
date; /usr/bin/time -v $Z propositions make $CID --json > props.json 2> props.err
date; /usr/bin/time -v $Z cards generate --from-passages $CID --json > cards_doc.json 2> cards_doc.err
date; /usr/bin/time -v $Z extract $CID --json > extract_doc.json 2> extract_doc.err
date; echo done
