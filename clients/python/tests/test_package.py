"""The package as a user gets it: built (python -m build), installed from its wheel into a clean
virtual environment, imported there and run against the service."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

from .conftest import World

PKG = Path(__file__).resolve().parents[1]

PROGRAM = textwrap.dedent(
    """
    import json, sys, spend_auth
    from spend_auth import SpendAuth
    base_url, api_key, agent_id, account = sys.argv[1:5]
    with SpendAuth(base_url=base_url, api_key=api_key) as client:
        d = client.authorize({"agent_id": agent_id, "amount": 1999, "currency": "USD", "vendor": "wheel.example.com"}, wait=10)
        claims = client.verify_token(d.authorization_token, account=account, livemode=True)
    print(json.dumps({"file": spend_auth.__file__, "version": spend_auth.__version__, "api": spend_auth.API_VERSION,
                      "decision": d.decision, "jti": claims["jti"] == d.decision_id}))
    """
)


def test_build_install_and_run(world: World, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(PKG)], check=True, capture_output=True)
    wheel = next(dist.glob("spend_auth-*.whl"))
    assert next(dist.glob("spend_auth-*.tar.gz"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "spend_auth/py.typed" in names and "spend_auth/_generated/api/authorization/post_v1_authorize.py" in names
    assert not any("tests/" in n for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)], check=True)
    (tmp_path / "app.py").write_text(PROGRAM)
    out = subprocess.run(
        [str(py), "app.py", world.base_url, world.api_key, world.agent_id, world.account_id],
        cwd=tmp_path, check=True, capture_output=True, text=True,
    )
    result = json.loads(out.stdout)
    assert result["file"].startswith(str(venv)), result  # the installed copy, not the source tree
    assert result["version"] == json.loads((PKG.parents[1] / "package.json").read_text())["version"]
    assert result == {**result, "api": "v1", "decision": "approved", "jti": True}
