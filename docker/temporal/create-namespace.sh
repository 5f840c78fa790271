#!/bin/sh
# One-shot (temporalio/admin-tools): the namespace spend-auth uses and the search attributes its
# held-request workflows carry, so the Temporal UI can filter on them (DECISIONS §8). Idempotent.
set -eu
NAMESPACE="${NAMESPACE:-default}"
ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"

echo "Waiting for Temporal at $ADDRESS..."
i=0
until temporal operator cluster health --address "$ADDRESS" >/dev/null 2>&1; do
  i=$((i + 1))
  if [ "$i" -ge 60 ]; then echo "Temporal did not become healthy"; exit 1; fi
  sleep 2
done

if temporal operator namespace describe --namespace "$NAMESPACE" --address "$ADDRESS" >/dev/null 2>&1; then
  echo "namespace $NAMESPACE exists"
else
  temporal operator namespace create --namespace "$NAMESPACE" --address "$ADDRESS"
  # Registration takes a few seconds to reach every service.
  sleep 10
fi

for attribute in AgentId:Keyword PolicyId:Keyword Vendor:Keyword ApprovalStatus:Keyword AmountMinor:Int Livemode:Bool; do
  name=${attribute%%:*}
  type=${attribute#*:}
  if temporal operator search-attribute list --namespace "$NAMESPACE" --address "$ADDRESS" | grep -qw "$name"; then
    echo "search attribute $name exists"
  else
    temporal operator search-attribute create --namespace "$NAMESPACE" --address "$ADDRESS" --name "$name" --type "$type"
  fi
done
echo "namespace $NAMESPACE is ready"
