#!/bin/sh
# NOGD on spambase: the LSOKL toolbox's own binary NysGD.m, run under GNU
# Octave, against bogdbench's NOGD on the same data and the same 20 orders
# (the toolbox's spambase.mat holds ../shared/datasets/spambase.svm.gz's
# rows and, as ID_all, the orders of spambase.perm.gz), at B = 100, k = 20,
# every η of the grid, σ = 8 (the paper's) and σ = 64 (the toolbox's
# experiment.m). See benchmarks/README.md, "NOGD against the toolbox itself".
#
# usage: benchmarks/lsokl-nogd/run.sh TOOLBOX_GIT_DIR
# where TOOLBOX_GIT_DIR is a clone or mirror of jingcoco/Online-Kernel-Learning
# (its git directory). Needs go and octave-cli; takes about 4 minutes.
set -eu
toolbox=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=$root/../shared/datasets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git --git-dir="$toolbox" archive HEAD binary | tar -x -C "$work"
# The one change to the toolbox: Octave's eigs, which NysGD.m calls for the
# top k eigenpairs, is replaced by a dense eig sorted in descending order.
sed -e '1s/= NysGD(/= NysGD_eig(/' \
    -e 's/\[V,D\] = eigs(k_hat, k);/[V,D] = eig(k_hat); [ev,ord] = sort(diag(D),"descend"); V = V(:,ord(1:k)); D = diag(ev(1:k));/' \
    "$work/binary/NysGD.m" > "$work/binary/NysGD_eig.m"
grep -q 'NysGD_eig(' "$work/binary/NysGD_eig.m" && grep -q '= eig(k_hat)' "$work/binary/NysGD_eig.m" || {
    echo "run.sh: NysGD.m is not the version this script edits" >&2
    exit 1
}
cp "$here/run_nysgd.m" "$work/binary/"
(cd "$root" && go build -o "$work/bogdbench" ./cmd/bogdbench)
for sigma in 8 64; do
    for eta in 2 0.2 0.02 0.002 0.0002; do
        # Octave 7 ends every script with a harmless "ignoring const
        # execution_exception" message, left out here.
        (cd "$work/binary" && octave-cli run_nysgd.m data/spambase.mat "$eta" 20 "$sigma" 100 2>&1) |
            grep -v 'ignoring const execution_exception'

        "$work/bogdbench" run --data "$data/spambase.svm.gz" --algo nogd --budget 100 --rank 20 \
            --sigma "$sigma" --eta "$eta" --order "$data/spambase.perm.gz" 2>/dev/null |
            awk -v s="$sigma" -v e="$eta" '$2 == "nogd" { printf "bogdbench sigma=%s eta=%s: %s ± %s %% over %s orders, %s s a pass\n", s, e, $5, $6, $4, $8 }'
    done
done
