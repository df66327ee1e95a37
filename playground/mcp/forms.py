"""The MCP server form: a streamable-HTTP URL with an optional write-only auth header, or an administrator's stdio key.

A command is never a field: a stdio server is one of the keys of ``CROSSWIRE_MCP_STDIO_SERVERS``, offered as a
choice, and anything else posted is ignored. The auth value goes in and never comes out: it has no initial value, is
never rendered back (not even after a failed save) and no error quotes it.
"""

from __future__ import annotations

from typing import Any

from django import forms

from playground.endpoints.policy import check_base_url
from playground.mcp import policy
from playground.mcp.models import DEFAULT_AUTH_HEADER, DEFAULT_CALL_TIMEOUT_S, DEFAULT_CONNECT_TIMEOUT_S, MCPServer
from playground.teams.models import Team

TRANSPORTS = {
    MCPServer.Transport.HTTP: "A server reached over the network at a URL (the MCP streamable HTTP transport).",
    MCPServer.Transport.STDIO: "A program this deployment's administrator set up; it runs beside Crosswire.",
}


def transport_of(value: str) -> str:
    return value if value in TRANSPORTS else MCPServer.Transport.HTTP


# In seconds, as the field says: Django's own words ("Ensure this value is greater than…") say neither unit nor why.
TIMEOUT_ERRORS = {
    "min_value": "A timeout is at least 0.1 seconds.",
    "max_value": "A timeout is at most 600 seconds (10 minutes).",
    "invalid": "A timeout is a number of seconds, such as 10 or 2.5.",
}


class MCPServerForm(forms.Form):
    name = forms.CharField(max_length=100)
    url = forms.CharField(max_length=500, required=False)
    auth_header_name = forms.CharField(max_length=100, required=False)
    # Write-only: never given an initial value, never rendered back (render_value=False), never echoed in errors.
    auth_header_value = forms.CharField(max_length=4000, required=False, widget=forms.PasswordInput())
    remove_auth = forms.BooleanField(required=False)
    stdio_key = forms.ChoiceField(required=False, choices=())
    connect_timeout_s = forms.FloatField(min_value=0.1, max_value=600.0, required=False, error_messages=TIMEOUT_ERRORS)
    call_timeout_s = forms.FloatField(min_value=0.1, max_value=600.0, required=False, error_messages=TIMEOUT_ERRORS)
    # Set by the page after a connection failure, so a server that is down today can still be saved.
    save_anyway = forms.BooleanField(required=False)

    def __init__(
        self,
        data: Any = None,
        *,
        team: Team,
        transport: str,
        is_owner: bool,
        instance: MCPServer | None = None,
    ) -> None:
        initial: dict[str, Any] = {
            "auth_header_name": DEFAULT_AUTH_HEADER,
            "connect_timeout_s": DEFAULT_CONNECT_TIMEOUT_S,
            "call_timeout_s": DEFAULT_CALL_TIMEOUT_S,
        }
        if instance is not None:
            initial = {
                "name": instance.name,
                "url": instance.url,
                "auth_header_name": instance.auth_header_name or DEFAULT_AUTH_HEADER,
                "stdio_key": instance.stdio_key,
                "connect_timeout_s": instance.connect_timeout_s,
                "call_timeout_s": instance.call_timeout_s,
            }
        super().__init__(data, initial=initial)
        self.team = team
        self.transport = instance.transport if instance is not None else transport_of(transport)
        self.is_owner = is_owner
        self.instance = instance
        keys = policy.stdio_keys()
        # A saved server keeps its key even when the administrator has since removed it: it shows, and fails to run.
        if instance is not None and instance.stdio_key and instance.stdio_key not in keys:
            keys = [*keys, instance.stdio_key]
        self.fields["stdio_key"].choices = [("", "Choose a server")] + [(key, key) for key in keys]

    @property
    def is_http(self) -> bool:
        return self.transport == MCPServer.Transport.HTTP

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError("Give the server a name.")
        taken = MCPServer.objects.filter(team=self.team, name__iexact=name)
        if self.instance is not None:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError("This team already has an MCP server with that name.")
        return name

    def clean_url(self) -> str:
        url = self.cleaned_data["url"].strip()
        if not self.is_http:
            return ""
        if not url:
            raise forms.ValidationError("Enter the server's URL, e.g. https://mcp.example.com/mcp.")
        problems = check_base_url(url, "").errors
        if problems:
            raise forms.ValidationError(problems)
        old_url = self.instance.url if self.instance is not None else None
        refusal = policy.url_refusal(url, changing=url != old_url, is_owner=self.is_owner)
        if refusal:
            raise forms.ValidationError(refusal)
        return url

    def clean_auth_header_name(self) -> str:
        return self.cleaned_data["auth_header_name"].strip() or DEFAULT_AUTH_HEADER

    def clean_auth_header_value(self) -> str:
        value = self.cleaned_data["auth_header_value"].strip()
        # Checked without quoting the value: error messages are rendered, and the value must never be. A line
        # break would end the header and start another one.
        if not value.isprintable():
            raise forms.ValidationError("A header value is one line of text.")
        return value

    def clean_stdio_key(self) -> str:
        key = self.cleaned_data["stdio_key"]
        if self.is_http:
            return ""
        if not key:
            raise forms.ValidationError("Choose one of the stdio servers the administrator set up.")
        try:
            policy.stdio_command(key)
        except policy.Refused as exc:
            raise forms.ValidationError(str(exc)) from None
        return key

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.is_http:
            return data
        if data.get("auth_header_value") and data.get("remove_auth"):
            self.add_error("remove_auth", "Either replace the auth header or remove it, not both.")
        header = data.get("auth_header_name", DEFAULT_AUTH_HEADER)
        # A new name for a header kept as it is must be checked as well: it is sent from now on.
        keeps_header = bool(self.instance and self.instance.auth_header_encrypted and not data.get("remove_auth"))
        if (data.get("auth_header_value") or keeps_header) and (problem := policy.header_name_problem(header)):
            self.add_error("auth_header_name", problem)
        return data

    def apply(self, *, created_by: Any = None) -> MCPServer:
        """The server as the form describes it, unsaved: the view connects to it before anything is stored."""
        server = self.instance or MCPServer(team=self.team, transport=self.transport, created_by=created_by)
        data = self.cleaned_data
        server.name = data["name"]
        server.url = data["url"]
        server.stdio_key = data["stdio_key"]
        server.connect_timeout_s = data["connect_timeout_s"] or DEFAULT_CONNECT_TIMEOUT_S
        server.call_timeout_s = data["call_timeout_s"] or DEFAULT_CALL_TIMEOUT_S
        if not self.is_http or data["remove_auth"]:
            server.set_auth_header("")
        elif data["auth_header_value"]:
            server.set_auth_header(data["auth_header_value"], data["auth_header_name"])
        elif server.auth_header_encrypted:
            server.auth_header_name = data["auth_header_name"]
        return server
