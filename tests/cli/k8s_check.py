"""Validates deploy/kubernetes/ab-job.yaml offline against the Kubernetes API schemas
(kubernetes-validate, strict: no unknown field) and checks what the split run needs of it;
prints the shell scripts of its containers, with their environment, as JSON for the test to
run them.

Usage: python k8s_check.py MANIFEST
"""

import json
import sys

import kubernetes_validate
import yaml


def containers(job, key="containers"):
    return {c["name"]: c for c in job["spec"]["template"]["spec"].get(key, [])}


def script(container):
    assert container["command"] == ["/bin/sh", "-c"], container["command"]
    assert len(container["args"]) == 1
    env = {e["name"]: e["value"] for e in container.get("env", [])}
    return {"script": container["args"][0], "env": env}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    version = kubernetes_validate.latest_version()
    for doc in docs:
        kubernetes_validate.validate(doc, version, strict=True)
    by_name = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    shards = by_name[("Job", "ptc-ab-shards")]
    merge = by_name[("Job", "ptc-ab-merge")]
    claim = by_name[("PersistentVolumeClaim", "ptc-ab-work")]
    assert "ReadWriteMany" in claim["spec"]["accessModes"]

    spec = shards["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["parallelism"] <= spec["completions"]
    shard = script(containers(shards)["shard"])
    assert int(shard["env"]["SHARDS"]) == spec["completions"], "SHARDS is the completions"
    assert "$JOB_COMPLETION_INDEX/$SHARDS" in shard["script"]
    assert "--format partial" in shard["script"]

    wait = script(containers(merge, "initContainers")["wait-for-parts"])
    assert int(wait["env"]["SHARDS"]) == spec["completions"]
    merged = script(containers(merge)["merge"])
    assert "ptc ab merge" in merged["script"]

    # Every volume mounted is declared, and the parts are on the shared claim in both Jobs.
    for job in (shards, merge):
        pod = job["spec"]["template"]["spec"]
        assert pod["restartPolicy"] == "Never"
        volumes = {v["name"]: v for v in pod["volumes"]}
        for c in pod["containers"] + pod.get("initContainers", []):
            for mount in c["volumeMounts"]:
                assert mount["name"] in volumes, mount
                if mount["name"] == "work":
                    claim_name = volumes["work"]["persistentVolumeClaim"]["claimName"]
                    assert claim_name == "ptc-ab-work"
            for key in ("PTC_PARTS", "PTC_RESULTS", "PTC_CORPUS"):
                path = {e["name"]: e["value"] for e in c.get("env", [])}.get(key)
                if path is not None:
                    mounted = [m["mountPath"] for m in c["volumeMounts"]]
                    assert any(path.startswith(m) for m in mounted), (c["name"], key, path)

    print(json.dumps({"resources": len(docs), "shard": shard, "wait": wait, "merge": merged}))


if __name__ == "__main__":
    main()
