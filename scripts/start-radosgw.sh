#!/usr/bin/env bash
# Starts a throw-away single-node Ceph cluster (one monitor, one memstore OSD,
# one radosgw) on 127.0.0.1 for Strata's S3 tests, in the background, and
# prints the S3 endpoint and keys as shell exports:
#
#   eval "$(bash scripts/start-radosgw.sh)"
#   # STRATA_S3_ENDPOINT=127.0.0.1:7480 STRATA_S3_ACCESS_KEY=... STRATA_S3_SECRET_KEY=...
#
# Idempotent: when the cluster in $STRATA_RGW_DIR is already up and answering,
# it only prints the exports again. `scripts/start-radosgw.sh stop` ends the
# daemons it started (by the pids it recorded) and removes the directory.
#
# Prerequisites (Debian 12): apt-get install radosgw ceph-mon ceph-osd ceph-common
# (about 30 s). The cluster runs without cephx (auth none) and without a
# manager daemon: nothing listens anywhere but 127.0.0.1, and a test cluster
# needs neither. The OSD keeps objects in memory (memstore), so it needs no
# disk image and starts in seconds; its data does not survive a stop.
#
# Logs go to $STRATA_RGW_DIR/log; every wait is bounded and the script exits
# non-zero, naming the step, when one runs out.
set -euo pipefail

DIR=${STRATA_RGW_DIR:-/tmp/strata-radosgw}
RGW_PORT=${STRATA_RGW_PORT:-7480}
MON_PORT=${STRATA_RGW_MON_PORT:-6789}
ACCESS_KEY=${STRATA_RGW_ACCESS_KEY:-STRATATESTACCESSKEY0}
SECRET_KEY=${STRATA_RGW_SECRET_KEY:-strata-test-secret-key-not-for-production}
# memstore's capacity: objects live in the OSD's memory.
OSD_BYTES=${STRATA_RGW_OSD_BYTES:-2147483648}
CONF=$DIR/ceph.conf

log() { echo "start-radosgw: $*" >&2; }
die() { log "$*"; for f in "$DIR"/log/*.log; do [ -f "$f" ] && { log "--- tail of $f"; tail -n 20 "$f" >&2; }; done; exit 1; }

# STRATA_RGW_STARTED=1 when this run started the cluster (so its caller may stop it), 0 when it was up.
STARTED=0
print_exports() {
  cat <<EOF
export STRATA_RGW_STARTED=$STARTED
export STRATA_S3_ENDPOINT=127.0.0.1:$RGW_PORT
export STRATA_S3_ACCESS_KEY=$ACCESS_KEY
export STRATA_S3_SECRET_KEY=$SECRET_KEY
export STRATA_S3_REGION=us-east-1
EOF
}

alive() { [ -f "$DIR/run/$1.pid" ] && kill -0 "$(cat "$DIR/run/$1.pid")" 2>/dev/null; }

stop_all() {
  for d in rgw osd mon; do
    if alive "$d"; then kill "$(cat "$DIR/run/$d.pid")" 2>/dev/null || true; fi
  done
  for _ in $(seq 1 50); do
    if alive rgw || alive osd || alive mon; then sleep 0.2; else break; fi
  done
  for d in rgw osd mon; do
    if alive "$d"; then kill -9 "$(cat "$DIR/run/$d.pid")" 2>/dev/null || true; fi
  done
}

# Answers any HTTP request: radosgw is up (an anonymous GET / gives 200).
rgw_answers() { curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$RGW_PORT/"; }

# Waits up to $1 seconds for the command in the remaining arguments.
wait_for() {
  local secs=$1 what=$2; shift 2
  local end=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || die "$what: not ready after ${secs}s"
    sleep 0.5
  done
}

ceph_() { timeout 30 ceph -c "$CONF" --connect-timeout 10 "$@"; }

if [ "${1:-}" = stop ]; then
  stop_all
  rm -rf "$DIR"
  exit 0
fi

for bin in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph curl timeout; do
  command -v "$bin" >/dev/null || { log "missing $bin: apt-get install radosgw ceph-mon ceph-osd ceph-common curl"; exit 2; }
done

if alive mon && alive osd && alive rgw && rgw_answers; then
  print_exports
  exit 0
fi

# Anything half up from an earlier run goes: a fresh cluster takes seconds.
STARTED=1
stop_all
rm -rf "$DIR"
mkdir -p "$DIR"/{mon,osd,run,log}
FSID=$(cat /proc/sys/kernel/random/uuid)

cat >"$CONF" <<EOF
[global]
fsid = $FSID
mon host = 127.0.0.1:$MON_PORT
mon initial members = a
public addr = 127.0.0.1
public network = 127.0.0.1/32
ms bind ipv6 = false
ms bind msgr2 = false
auth cluster required = none
auth service required = none
auth client required = none
run dir = $DIR/run
log file = $DIR/log/\$name.log
admin socket = $DIR/run/\$name.asok
pid file = $DIR/run/\$name.pid
# One OSD: one replica, placement over OSDs rather than hosts, few PGs.
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon max pg per osd = 1000
# No manager daemon runs; do not wait for one.
mon warn on insecure global id reclaim allowed = false
[mon.a]
mon data = $DIR/mon
[osd.0]
osd data = $DIR/osd
osd objectstore = memstore
memstore device bytes = $OSD_BYTES
# The OSD would place itself in the CRUSH map at start, by a monitor command
# it can send before it has the monitor map (then refused as 'wrong fsid', in
# about a third of starts here): the script places it before starting it.
osd crush update on start = false
osd class update on start = false
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT
rgw data = $DIR/rgw
rgw enable usage log = false
rgw dns name = localhost
EOF

log "monitor"
monmaptool --create --add a "127.0.0.1:$MON_PORT" --fsid "$FSID" "$DIR/monmap" >/dev/null
ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" >"$DIR/log/mkfs-mon.out" 2>&1 || die "ceph-mon --mkfs failed"
ceph-mon -c "$CONF" -i a || die "ceph-mon did not start"
wait_for 30 "monitor" ceph_ mon stat
cp "$DIR/run/mon.a.pid" "$DIR/run/mon.pid"

log "OSD"
OSD_UUID=$(cat /proc/sys/kernel/random/uuid)
# A monitor that answers `mon stat` may still refuse commands for a moment
# (EPERM "problem getting command descriptions"): ask again until it takes one.
OSD_ID=""
end=$((SECONDS + 30))
until OSD_ID=$(ceph_ osd new "$OSD_UUID" 2>"$DIR/log/osd-new.err"); do
  [ $SECONDS -lt $end ] || die "ceph osd new failed: $(cat "$DIR/log/osd-new.err")"
  sleep 0.5
done
[ "$OSD_ID" = 0 ] || die "expected osd id 0, got $OSD_ID"
wait_for 30 "ceph osd crush add" ceph_ osd crush add osd.0 1.0 root=default
ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$OSD_UUID" >"$DIR/log/mkfs-osd.out" 2>&1 || die "ceph-osd --mkfs failed"
ceph-osd -c "$CONF" -i 0 2>"$DIR/log/osd-start.err" || die "ceph-osd did not start"
wait_for 60 "OSD up" bash -c "ceph -c '$CONF' --connect-timeout 10 osd dump 2>/dev/null | grep -q '^osd.0 up'"
cp "$DIR/run/osd.0.pid" "$DIR/run/osd.pid"

log "radosgw"
radosgw -c "$CONF" -n client.rgw || die "radosgw did not start"
wait_for 90 "radosgw" rgw_answers
cp "$DIR/run/client.rgw.pid" "$DIR/run/rgw.pid"

log "user"
timeout 60 radosgw-admin -c "$CONF" -n client.rgw user create --uid=strata --display-name=strata \
  --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >"$DIR/log/user.json" 2>"$DIR/log/user.err" \
  || die "radosgw-admin user create failed"

print_exports
