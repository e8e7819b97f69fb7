#!/bin/bash
set -x
Z="/work/main/.venv/bin/zettelgraph --home /tmp/l31/home2 --llm local"
export ZETTELGRAPH_LOCAL_THREADS=1 OMP_NUM_THREADS=1
cd /tmp/l31
$Z ingest doc.md --json > ingest2.json 2> ingest2.err
CID=$(/work/main/.venv/bin/python -c "import json;print(json.load(open('ingest2.json'))['contents'][0]['id'])")
date; /usr/bin/time -v $Z cards generate --from-passages $CID --json > cards2.json 2> cards2.err
date; /usr/bin/time -v $Z propositions make $CID --json > props2.json 2> props2.err
date; echo done
