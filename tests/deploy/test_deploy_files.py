"""deploy/: every YAML parses, the Kubernetes manifests pass the Kubernetes schemas (offline,
kubernetes-validate, strict: unknown fields fail), and the files agree with each other and
with the service (ports, probes, the health-check module, non-root user, Redis AOF).

The image cannot be built here (no container registry to pull the base from); the compose
file is checked with ``docker compose config`` only where a compose CLI is installed.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
K8S = DEPLOY / "k8s"
KUBERNETES_VERSIONS = ("1.30.0", "1.35.0")  # the oldest with the preStop sleep action on
GRPC_PORT, METRICS_PORT = 50051, 9464
PROCESSES = 2
"""Server processes per replica: each serves metrics on METRICS_PORT + its index."""
METRICS_PORTS = [METRICS_PORT + index for index in range(PROCESSES)]
HEALTHCHECK_MODULE = "engine_service.api.healthcheck"


def documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def manifest_files() -> list[Path]:
    return sorted(path for path in K8S.glob("*.yaml") if path.name != "kustomization.yaml")


def manifests() -> list[dict[str, Any]]:
    return [doc for path in manifest_files() for doc in documents(path)]


def of_kind(kind: str, name: str) -> dict[str, Any]:
    (found,) = [m for m in manifests() if m["kind"] == kind and m["metadata"]["name"] == name]
    return found


def test_every_yaml_under_deploy_parses() -> None:
    paths = sorted(DEPLOY.rglob("*.y*ml"))
    assert len(paths) >= 7
    for path in paths:
        assert documents(path), path


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_manifests_pass_the_kubernetes_schemas(version: str) -> None:
    resources = manifests()
    kinds = {m["kind"] for m in resources}
    expected = {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"}
    assert expected | {"StatefulSet"} <= kinds
    for resource in resources:
        kubernetes_validate.validate(resource, version, strict=True)


def test_kustomization_lists_every_manifest() -> None:
    (kustomization,) = documents(K8S / "kustomization.yaml")
    assert set(kustomization["resources"]) == {path.name for path in manifest_files()}


def engine_container() -> dict[str, Any]:
    deployment = of_kind("Deployment", "engine")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


def test_engine_probes_use_grpc_health_on_the_serving_port() -> None:
    container = engine_container()
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert ports == {"grpc": GRPC_PORT, "metrics": METRICS_PORT, "metrics-1": METRICS_PORT + 1}
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == GRPC_PORT, probe
    env = {item["name"]: item["value"] for item in container["env"]}
    assert env["ENGINE_ADDRESS"].endswith(f":{GRPC_PORT}")
    assert env["ENGINE_METRICS_PORT"] == str(METRICS_PORT)
    assert (
        int(env["ENGINE_PROCESSES"]) == PROCESSES == int(container["resources"]["requests"]["cpu"])
    )
    grace = of_kind("Deployment", "engine")["spec"]["template"]["spec"]
    assert grace["terminationGracePeriodSeconds"] > float(env["ENGINE_GRACE"]) + 5


def test_every_process_of_a_replica_has_its_metrics_port_open() -> None:
    """The launcher gives process i the metrics port ENGINE_METRICS_PORT + i."""
    ports = {port["port"] for port in of_kind("Service", "engine-headless")["spec"]["ports"]}
    assert set(METRICS_PORTS) <= ports
    engine = documents(DEPLOY / "compose.yaml")[0]["services"]["engine"]
    assert int(engine["environment"]["ENGINE_PROCESSES"]) == PROCESSES
    assert {str(port) for port in METRICS_PORTS} <= set(engine["expose"])
    exposed = re.findall(r"^EXPOSE (.*)$", (DEPLOY / "Dockerfile").read_text(), re.MULTILINE)
    assert {str(port) for port in METRICS_PORTS} <= set(exposed[0].split())


def test_engine_runs_unprivileged() -> None:
    pod = of_kind("Deployment", "engine")["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert engine_container()["securityContext"]["allowPrivilegeEscalation"] is False


def test_selectors_reach_the_engine_pods() -> None:
    labels = of_kind("Deployment", "engine")["spec"]["template"]["metadata"]["labels"]
    for service in ("engine", "engine-headless"):
        assert of_kind("Service", service)["spec"]["selector"].items() <= labels.items()
    pdb = of_kind("PodDisruptionBudget", "engine")["spec"]["selector"]["matchLabels"]
    assert pdb.items() <= labels.items()
    target = of_kind("HorizontalPodAutoscaler", "engine")["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", "engine")


def test_redis_keeps_an_append_only_file() -> None:
    (redis,) = of_kind("StatefulSet", "redis")["spec"]["template"]["spec"]["containers"]
    assert "--appendonly" in redis["args"]
    assert redis["args"][redis["args"].index("--appendonly") + 1] == "yes"
    compose_redis = documents(DEPLOY / "compose.yaml")[0]["services"]["redis"]
    assert compose_redis["command"][compose_redis["command"].index("--appendonly") + 1] == "yes"


def test_compose_runs_two_replicas_behind_one_port() -> None:
    services = documents(DEPLOY / "compose.yaml")[0]["services"]
    assert services["engine"]["deploy"]["replicas"] == 2
    published = {name: s["ports"] for name, s in services.items() if "ports" in s}
    assert published == {"gateway": [f"{GRPC_PORT}:{GRPC_PORT}"]}
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert re.search(rf"server engine:{GRPC_PORT} resolve;", nginx)
    assert "grpc_pass grpc://engine;" in nginx


def test_dockerfile_runs_unprivileged_with_a_grpc_health_check() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    (user,) = re.findall(r"^USER (\S+)$", text, re.MULTILINE)
    assert user.split(":")[0] not in {"root", "0"}
    (check,) = re.findall(r"^\s*CMD (\[.*\])$", text, re.MULTILINE)
    assert yaml.safe_load(check) == ["python", "-m", HEALTHCHECK_MODULE]
    assert importlib.util.find_spec(HEALTHCHECK_MODULE) is not None
    assert f"EXPOSE {GRPC_PORT} {METRICS_PORT}" in text
    assert 'ENTRYPOINT ["python", "-m", "engine_service"]' in text


def compose_cli() -> list[str] | None:
    docker = shutil.which("docker")
    if docker:
        plugin = [docker, "compose"]
        if subprocess.run([*plugin, "version"], capture_output=True, check=False).returncode == 0:
            return plugin  # Compose v2, the docker plugin
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def test_compose_file_passes_docker_compose_config() -> None:
    cli = compose_cli()
    if cli is None:
        pytest.skip("no docker compose CLI installed: compose.yaml checked structurally only")
    finished = subprocess.run(
        [*cli, "-f", str(DEPLOY / "compose.yaml"), "config", "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
