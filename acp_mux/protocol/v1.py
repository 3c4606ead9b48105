"""ACP protocol v1 models, generated from acp_mux/protocol/schema/v1/schema.json (schema schema-v1.21.0, commit 272bf799f35a258c6a4107a0410ed361e83683d3).

Do not edit: run `python tools/gen_acp_models.py` (docs/acp-versions.md).
"""

from typing import Annotated, Any, Literal

from acp_mux.protocol.base import AcpModel
from pydantic import ConfigDict, Field
from typing_extensions import TypeAliasType


class AgentClientProtocol23(AcpModel):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


class AgentClientProtocol53(AcpModel):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


RequestId = TypeAliasType(
    "RequestId",
    Annotated[
        int | str | None,
        Field(
            description="JSON RPC Request Id\n\nAn identifier established by the Client that MUST contain a String, Number, or NULL value if included. If it is not included it is assumed to be a notification. The value SHOULD normally not be Null \\[1\\] and Numbers SHOULD NOT contain fractional parts \\[2\\]\n\nThe Server MUST reply with the same value in the Response object if included. This member is used to correlate the context between the two objects.\n\n\\[1\\] The use of Null as a value for the id member in a Request object is discouraged, because this specification uses a value of Null for Responses with an unknown id. Also, because JSON-RPC 1.0 uses an id value of Null for Notifications this could cause confusion in handling.\n\n\\[2\\] Fractional parts may be problematic, since many decimal fractions cannot be represented exactly as binary fractions."
        ),
    ],
)


SessionId = TypeAliasType(
    "SessionId",
    Annotated[
        str,
        Field(
            description="A unique identifier for a conversation session between a client and agent.\n\nSessions maintain their own context, conversation history, and state,\nallowing multiple independent interactions with the same agent.\n\nSee protocol docs: [Session ID](https://agentclientprotocol.com/protocol/session-setup#session-id)"
        ),
    ],
)


class ReadTextFileRequest(AcpModel):
    """
    Request to read content from a text file.

    Only available if the client supports the `fs.readTextFile` capability.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The session ID for this request."),
    ]
    path: Annotated[str, Field(description="Absolute path to the file to read.")]
    line: Annotated[
        int | None,
        Field(description="Line number to start reading from (1-based).", ge=0),
    ] = None
    limit: Annotated[int | None, Field(description="Maximum number of lines to read.", ge=0)] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


ToolCallId = TypeAliasType(
    "ToolCallId",
    Annotated[str, Field(description="Unique identifier for a tool call within a session.")],
)


ToolKind = TypeAliasType(
    "ToolKind",
    Annotated[
        Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"],
        Field(
            description="Categories of tools that can be invoked.\n\nTool kinds help clients choose appropriate icons and optimize how they\ndisplay tool execution progress.\n\nSee protocol docs: [Creating](https://agentclientprotocol.com/protocol/tool-calls#creating)"
        ),
    ],
)


ToolCallStatus = TypeAliasType(
    "ToolCallStatus",
    Annotated[
        Literal["pending", "in_progress", "completed", "failed"],
        Field(
            description="Execution status of a tool call.\n\nTool calls progress through different statuses during their lifecycle.\n\nSee protocol docs: [Status](https://agentclientprotocol.com/protocol/tool-calls#status)"
        ),
    ],
)


Role = TypeAliasType(
    "Role",
    Annotated[
        Literal["assistant", "user"],
        Field(description="The sender or recipient of messages and data in a conversation."),
    ],
)


class TextResourceContents(AcpModel):
    """
    Text-based resource contents.
    """

    mime_type: Annotated[
        str | None,
        Field(
            alias="mimeType",
            description="MIME type describing the encoded media payload.",
        ),
    ] = None
    text: Annotated[str, Field(description="Text payload carried by this content block.")]
    uri: Annotated[str, Field(description="URI associated with this resource or media payload.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class BlobResourceContents(AcpModel):
    """
    Binary resource contents.
    """

    blob: Annotated[str, Field(description="Base64-encoded bytes for a binary resource payload.")]
    mime_type: Annotated[
        str | None,
        Field(
            alias="mimeType",
            description="MIME type describing the encoded media payload.",
        ),
    ] = None
    uri: Annotated[str, Field(description="URI associated with this resource or media payload.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class Diff(AcpModel):
    """
    A diff representing file modifications.

    Shows changes to files in a format suitable for display in the client UI.

    See protocol docs: [Content](https://agentclientprotocol.com/protocol/tool-calls#content)
    """

    path: Annotated[str, Field(description="The absolute file path being modified.")]
    old_text: Annotated[
        str | None,
        Field(alias="oldText", description="The original content (None for new files)."),
    ] = None
    new_text: Annotated[str, Field(alias="newText", description="The new content after modification.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


TerminalId = TypeAliasType(
    "TerminalId",
    Annotated[str, Field(description="Typed identifier used for terminal values on the wire.")],
)


class Terminal(AcpModel):
    """
    Embed a terminal created with `terminal/create` by its id.

    The terminal must be added before calling `terminal/release`.

    See protocol docs: [Terminal](https://agentclientprotocol.com/protocol/terminals)
    """

    terminal_id: Annotated[
        TerminalId,
        Field(
            alias="terminalId",
            description="Identifier of the terminal instance to embed in the content stream.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ToolCallLocation(AcpModel):
    """
    A file location being accessed or modified by a tool.

    Enables clients to implement "follow-along" features that track
    which files the agent is working with in real-time.

    See protocol docs: [Following the Agent](https://agentclientprotocol.com/protocol/tool-calls#following-the-agent)
    """

    path: Annotated[str, Field(description="The absolute file path being accessed or modified.")]
    line: Annotated[int | None, Field(description="Optional line number within the file.", ge=0)] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


PermissionOptionId = TypeAliasType(
    "PermissionOptionId",
    Annotated[str, Field(description="Unique identifier for a permission option.")],
)


PermissionOptionKind = TypeAliasType(
    "PermissionOptionKind",
    Annotated[
        Literal["allow_once", "allow_always", "reject_once", "reject_always"],
        Field(
            description="The type of permission option being presented to the user.\n\nHelps clients choose appropriate icons and UI treatment."
        ),
    ],
)


class EnvVariable(AcpModel):
    """
    An environment variable to set when launching an MCP server.
    """

    name: Annotated[str, Field(description="The name of the environment variable.")]
    value: Annotated[str, Field(description="The value to set for the environment variable.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class TerminalOutputRequest(AcpModel):
    """
    Request to get the current output and status of a terminal.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The session ID for this request."),
    ]
    terminal_id: Annotated[
        TerminalId,
        Field(alias="terminalId", description="The ID of the terminal to get output from."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ReleaseTerminalRequest(AcpModel):
    """
    Request to release a terminal and free its resources.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The session ID for this request."),
    ]
    terminal_id: Annotated[
        TerminalId,
        Field(alias="terminalId", description="The ID of the terminal to release."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class WaitForTerminalExitRequest(AcpModel):
    """
    Request to wait for a terminal command to exit.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The session ID for this request."),
    ]
    terminal_id: Annotated[
        TerminalId,
        Field(alias="terminalId", description="The ID of the terminal to wait for."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class KillTerminalRequest(AcpModel):
    """
    Request to kill a terminal without releasing it.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The session ID for this request."),
    ]
    terminal_id: Annotated[
        TerminalId,
        Field(alias="terminalId", description="The ID of the terminal to kill."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CreateElicitationRequest13(AcpModel):
    """
    Form-based elicitation where the client renders a form from the provided schema.
    """

    message: Annotated[
        str,
        Field(description="A human-readable message describing what input is needed."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    mode: Literal["form"]


class CreateElicitationRequest23(AcpModel):
    """
    URL-based elicitation where the client directs the user to a URL.
    """

    message: Annotated[
        str,
        Field(description="A human-readable message describing what input is needed."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    mode: Literal["url"]


class ElicitationSessionScope(AcpModel):
    """
    Session-scoped elicitation, optionally tied to a specific tool call.

    When `tool_call_id` is set, the elicitation is tied to a specific tool call.
    This is useful when an agent receives an elicitation from an MCP server
    during a tool call and needs to redirect it to the user.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The session this elicitation is tied to."),
    ]
    tool_call_id: Annotated[
        ToolCallId | None,
        Field(
            alias="toolCallId",
            description="Optional tool call within the session.\n\nOptional. Omitted and `null` are equivalent and mean the elicitation is scoped to the\nsession without a specific tool call.",
        ),
    ] = None


class ElicitationRequestScope(AcpModel):
    """
    Request-scoped elicitation, tied to a specific JSON-RPC request outside of a session
    (e.g., during auth/configuration phases before any session is started).
    """

    request_id: Annotated[
        RequestId,
        Field(alias="requestId", description="The request this elicitation is tied to."),
    ]


ElicitationSchemaType = TypeAliasType(
    "ElicitationSchemaType",
    Annotated[
        Literal["object"],
        Field(description="Type discriminator for elicitation schemas."),
    ],
)


class ElicitationPropertySchema6(AcpModel):
    """
    Custom or future elicitation property schema.

    Values beginning with `_` are reserved for implementation-specific
    extensions. Unknown values that do not begin with `_` are reserved for
    future ACP variants.

    Clients that do not understand this property schema type should preserve
    the raw schema when storing, replaying, proxying, or forwarding
    elicitation requests. They MUST NOT render it as a known input control.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    type: Annotated[
        str,
        Field(
            description="Custom or future elicitation property schema type.\n\nValues beginning with `_` are reserved for implementation-specific\nextensions. Unknown values that do not begin with `_` are reserved for\nfuture ACP variants."
        ),
    ]


StringFormat = TypeAliasType(
    "StringFormat",
    Annotated[
        Literal["email", "uri", "date", "date-time"],
        Field(description="String format types for string properties in elicitation schemas."),
    ],
)


class EnumOption(AcpModel):
    """
    A titled enum option with a const value, human-readable title, and optional description.
    """

    const: Annotated[str, Field(description="The constant value for this option.")]
    title: Annotated[str, Field(description="Human-readable title for this option.")]
    description: Annotated[
        str | None,
        Field(
            description="Human-readable description.\n\nOptional. Omitted and `null` are equivalent and mean no description is provided."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class StringPropertySchema(AcpModel):
    """
    Schema for string properties in an elicitation form.

    When `enum` or `oneOf` is set, this represents a single-select enum
    with `"type": "string"`.
    """

    title: Annotated[
        str | None,
        Field(
            description="Optional title for the property.\n\nOptional. Omitted and `null` are equivalent and mean no title is provided."
        ),
    ] = None
    description: Annotated[
        str | None,
        Field(
            description="Human-readable description.\n\nOptional. Omitted and `null` are equivalent and mean no description is provided."
        ),
    ] = None
    min_length: Annotated[
        int | None,
        Field(
            alias="minLength",
            description="Minimum string length.\n\nOptional. Omitted and `null` are equivalent and mean there is no minimum length constraint.",
            ge=0,
        ),
    ] = None
    max_length: Annotated[
        int | None,
        Field(
            alias="maxLength",
            description="Maximum string length.\n\nOptional. Omitted and `null` are equivalent and mean there is no maximum length constraint.",
            ge=0,
        ),
    ] = None
    pattern: Annotated[
        str | None,
        Field(
            description="Pattern the string must match.\n\nOptional. Omitted and `null` are equivalent and mean there is no pattern constraint."
        ),
    ] = None
    format: Annotated[
        StringFormat | None,
        Field(
            description="String format.\n\nOptional. Omitted and `null` are equivalent and mean there is no format constraint."
        ),
    ] = None
    default: Annotated[
        str | None,
        Field(
            description="Default value.\n\nOptional. Omitted and `null` are equivalent and mean no default value is provided."
        ),
    ] = None
    enum: Annotated[
        list[str] | None,
        Field(
            description="Enum values for untitled single-select enums.\nOptional. Omitted and `null` are equivalent and mean no untitled single-select choices are\ndeclared by `enum`."
        ),
    ] = None
    one_of: Annotated[
        list[EnumOption] | None,
        Field(
            alias="oneOf",
            description="Titled enum options for titled single-select enums.\nOptional. Omitted and `null` are equivalent and mean no titled single-select choices are\ndeclared by `oneOf`.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class NumberPropertySchema(AcpModel):
    """
    Schema for number (floating-point) properties in an elicitation form.
    """

    title: Annotated[
        str | None,
        Field(
            description="Optional title for the property.\n\nOptional. Omitted and `null` are equivalent and mean no title is provided."
        ),
    ] = None
    description: Annotated[
        str | None,
        Field(
            description="Human-readable description.\n\nOptional. Omitted and `null` are equivalent and mean no description is provided."
        ),
    ] = None
    minimum: Annotated[
        float | None,
        Field(
            description="Minimum value (inclusive).\n\nOptional. Omitted and `null` are equivalent and mean there is no inclusive lower bound."
        ),
    ] = None
    maximum: Annotated[
        float | None,
        Field(
            description="Maximum value (inclusive).\n\nOptional. Omitted and `null` are equivalent and mean there is no inclusive upper bound."
        ),
    ] = None
    default: Annotated[
        float | None,
        Field(
            description="Default value.\n\nOptional. Omitted and `null` are equivalent and mean no default value is provided."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class IntegerPropertySchema(AcpModel):
    """
    Schema for integer properties in an elicitation form.
    """

    title: Annotated[
        str | None,
        Field(
            description="Optional title for the property.\n\nOptional. Omitted and `null` are equivalent and mean no title is provided."
        ),
    ] = None
    description: Annotated[
        str | None,
        Field(
            description="Human-readable description.\n\nOptional. Omitted and `null` are equivalent and mean no description is provided."
        ),
    ] = None
    minimum: Annotated[
        int | None,
        Field(
            description="Minimum value (inclusive).\n\nOptional. Omitted and `null` are equivalent and mean there is no inclusive lower bound."
        ),
    ] = None
    maximum: Annotated[
        int | None,
        Field(
            description="Maximum value (inclusive).\n\nOptional. Omitted and `null` are equivalent and mean there is no inclusive upper bound."
        ),
    ] = None
    default: Annotated[
        int | None,
        Field(
            description="Default value.\n\nOptional. Omitted and `null` are equivalent and mean no default value is provided."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class BooleanPropertySchema(AcpModel):
    """
    Schema for boolean properties in an elicitation form.
    """

    title: Annotated[
        str | None,
        Field(
            description="Optional title for the property.\n\nOptional. Omitted and `null` are equivalent and mean no title is provided."
        ),
    ] = None
    description: Annotated[
        str | None,
        Field(
            description="Human-readable description.\n\nOptional. Omitted and `null` are equivalent and mean no description is provided."
        ),
    ] = None
    default: Annotated[
        bool | None,
        Field(
            description="Default value.\n\nOptional. Omitted and `null` are equivalent and mean no default value is provided."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class MultiSelectItems2(AcpModel):
    """
    Custom or future typed multi-select items.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    type: Annotated[
        str,
        Field(
            description="Custom or future multi-select item type.\n\nValues beginning with `_` are reserved for implementation-specific\nextensions. Unknown values that do not begin with `_` are reserved for\nfuture ACP variants."
        ),
    ]


class StringMultiSelectItems(AcpModel):
    """
    String item schema for multi-select enum properties.
    """

    enum: Annotated[list[str], Field(description="Allowed enum values.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class TitledMultiSelectItems(AcpModel):
    """
    Items definition for titled multi-select enum properties.
    """

    any_of: Annotated[list[EnumOption], Field(alias="anyOf", description="Titled enum options.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


ElicitationId = TypeAliasType(
    "ElicitationId",
    Annotated[str, Field(description="Unique identifier for an elicitation.")],
)


class ElicitationUrlMode1(ElicitationSessionScope):
    """
    Tied to a session, optionally to a specific tool call within that session.
    """

    elicitation_id: Annotated[
        ElicitationId,
        Field(
            alias="elicitationId",
            description="The unique identifier for this elicitation.",
        ),
    ]
    url: Annotated[str, Field(description="The URL to direct the user to.")]


class ElicitationUrlMode2(ElicitationRequestScope):
    """
    Tied to a specific JSON-RPC request outside of a session
    (e.g., during auth/configuration phases before any session is started).
    """

    elicitation_id: Annotated[
        ElicitationId,
        Field(
            alias="elicitationId",
            description="The unique identifier for this elicitation.",
        ),
    ]
    url: Annotated[str, Field(description="The URL to direct the user to.")]


ElicitationUrlMode = TypeAliasType(
    "ElicitationUrlMode",
    Annotated[
        ElicitationUrlMode1 | ElicitationUrlMode2,
        Field(description="URL-based elicitation mode where the client directs the user to a URL."),
    ],
)


ExtRequest = TypeAliasType(
    "ExtRequest",
    Annotated[
        Any,
        Field(
            description="Allows for sending an arbitrary request that is not part of the ACP spec.\nExtension methods provide a way to add custom functionality while maintaining\nprotocol compatibility.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)"
        ),
    ],
)


ProtocolVersion = TypeAliasType(
    "ProtocolVersion",
    Annotated[
        int,
        Field(
            description="Protocol version identifier.\n\nThis version is only bumped for breaking changes.\nNon-breaking changes should be introduced via capabilities.",
            ge=0,
            le=65535,
        ),
    ],
)


class PromptCapabilities(AcpModel):
    """
    Prompt capabilities supported by the agent in `session/prompt` requests.

    Baseline agent functionality requires support for [`ContentBlock::Text`]
    and [`ContentBlock::ResourceLink`] in prompt requests.

    Other variants must be explicitly opted in to.
    Capabilities for different types of content in prompt requests.

    Indicates which content types beyond the baseline (text and resource links)
    the agent can process.

    See protocol docs: [Prompt Capabilities](https://agentclientprotocol.com/protocol/initialization#prompt-capabilities)
    """

    image: Annotated[bool | None, Field(description="Agent supports [`ContentBlock::Image`].")] = False
    audio: Annotated[bool | None, Field(description="Agent supports [`ContentBlock::Audio`].")] = False
    embedded_context: Annotated[
        bool | None,
        Field(
            alias="embeddedContext",
            description="Agent supports embedded context in `session/prompt` requests.\n\nWhen enabled, the Client is allowed to include [`ContentBlock::Resource`]\nin prompt requests for pieces of context that are referenced in the message.",
        ),
    ] = False
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class McpCapabilities(AcpModel):
    """
    MCP capabilities supported by the agent
    """

    http: Annotated[bool | None, Field(description="Agent supports [`McpServer::Http`].")] = False
    sse: Annotated[bool | None, Field(description="Agent supports [`McpServer::Sse`].")] = False
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionListCapabilities(AcpModel):
    """
    Capabilities for the `session/list` method.

    Supplying `{}` means the agent supports listing sessions.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionDeleteCapabilities(AcpModel):
    """
    Capabilities for the `session/delete` method.

    Supplying `{}` means the agent supports deleting sessions from `session/list`.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionAdditionalDirectoriesCapabilities(AcpModel):
    """
    Capabilities for additional session directories support.

    Supplying `{}` means the agent supports the `additionalDirectories` field on
    supported session lifecycle requests. Agents that also support
    `session/list` may return `SessionInfo.additionalDirectories` to report the
    complete ordered additional-root list associated with a listed session.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionResumeCapabilities(AcpModel):
    """
    Capabilities for the `session/resume` method.

    Supplying `{}` means the agent supports resuming sessions.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionCloseCapabilities(AcpModel):
    """
    Capabilities for the `session/close` method.

    Supplying `{}` means the agent supports closing sessions.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class LogoutCapabilities(AcpModel):
    """
    Logout capabilities supported by the agent.

    Supplying `{}` means the agent supports the logout method.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


AuthMethodId = TypeAliasType(
    "AuthMethodId",
    Annotated[
        str,
        Field(description="Typed identifier used for auth method values on the wire."),
    ],
)


class AuthMethodTerminal(AcpModel):
    """
    Terminal-based authentication method.

    The client runs the configured agent program as a separate interactive
    process for the user to authenticate via a TUI. Agents MUST advertise this
    method only when the client enabled its terminal authentication capability.
    A zero exit status signals success; any other termination signals failure.
    The client MUST NOT pass this method to `authenticate`.
    """

    id: Annotated[
        AuthMethodId,
        Field(description="Unique identifier for this authentication method."),
    ]
    name: Annotated[str, Field(description="Human-readable name of the authentication method.")]
    description: Annotated[
        str | None,
        Field(description="Optional description providing more details about this authentication method."),
    ] = None
    args: Annotated[
        list[str] | None,
        Field(description="Additional arguments to append to the configured agent invocation for terminal auth."),
    ] = None
    env: Annotated[
        dict[str, str] | None,
        Field(
            description="Additional environment variables to set on the configured agent invocation for terminal auth.\nThese values override same-named variables in the base launch configuration."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AuthMethodAgent(AcpModel):
    """
    Agent handles authentication itself through `authenticate`.

    This is the default authentication method type.
    """

    id: Annotated[
        AuthMethodId,
        Field(description="Unique identifier for this authentication method."),
    ]
    name: Annotated[str, Field(description="Human-readable name of the authentication method.")]
    description: Annotated[
        str | None,
        Field(description="Optional description providing more details about this authentication method."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class Implementation(AcpModel):
    """
    Metadata about the implementation of the client or agent.
    Describes the name and version of an ACP implementation, with an optional
    title for UI representation.
    """

    name: Annotated[
        str,
        Field(
            description="Intended for programmatic or logical use, but can be used as a display\nname fallback if title isn’t present."
        ),
    ]
    title: Annotated[
        str | None,
        Field(
            description="Intended for UI and end-user contexts — optimized to be human-readable\nand easily understood.\n\nIf not provided, the name should be used for display."
        ),
    ] = None
    version: Annotated[
        str,
        Field(
            description='Version of the implementation. Can be displayed to the user or used\nfor debugging or metrics purposes. (e.g. "1.0.0").'
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AuthenticateResponse(AcpModel):
    """
    Response to the `authenticate` method.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class LogoutResponse(AcpModel):
    """
    Response to the `logout` method.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


SessionModeId = TypeAliasType(
    "SessionModeId",
    Annotated[str, Field(description="Unique identifier for a Session Mode.")],
)


class SessionMode(AcpModel):
    """
    A mode the agent can operate in.

    See protocol docs: [Session Modes](https://agentclientprotocol.com/protocol/session-modes)
    """

    id: Annotated[
        SessionModeId,
        Field(description="Stable identifier used to refer to this protocol object in later messages."),
    ]
    name: Annotated[str, Field(description="Human-readable name shown for this protocol object.")]
    description: Annotated[
        str | None,
        Field(description="Optional human-readable details shown with this protocol object."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


SessionConfigId = TypeAliasType(
    "SessionConfigId",
    Annotated[str, Field(description="Unique identifier for a session configuration option.")],
)


SessionConfigOptionCategory = TypeAliasType(
    "SessionConfigOptionCategory",
    Annotated[
        Literal["mode"] | Literal["model"] | Literal["model_config"] | Literal["thought_level"] | str,
        Field(
            description="Semantic category for a session configuration option.\n\nThis is intended to help Clients distinguish broadly common selectors (e.g. model selector vs\nsession mode selector vs thought/reasoning level) for UX purposes (keyboard shortcuts, icons,\nplacement). It MUST NOT be required for correctness. Clients MUST handle missing or unknown\ncategories gracefully.\n\nCategory names beginning with `_` are free for custom use, like other ACP extension methods.\nCategory names that do not begin with `_` are reserved for the ACP spec."
        ),
    ],
)


SessionConfigValueId = TypeAliasType(
    "SessionConfigValueId",
    Annotated[
        str,
        Field(description="Unique identifier for a session configuration option value."),
    ],
)


class SessionConfigSelectOption(AcpModel):
    """
    A possible value for a session configuration option.
    """

    value: Annotated[
        SessionConfigValueId,
        Field(description="Unique identifier for this option value."),
    ]
    name: Annotated[str, Field(description="Human-readable label for this option value.")]
    description: Annotated[str | None, Field(description="Optional description for this option value.")] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


SessionConfigGroupId = TypeAliasType(
    "SessionConfigGroupId",
    Annotated[
        str,
        Field(description="Unique identifier for a session configuration option value group."),
    ],
)


class SessionConfigBoolean(AcpModel):
    """
    A boolean on/off toggle session configuration option payload.
    """

    current_value: Annotated[
        bool,
        Field(alias="currentValue", description="The current value of the boolean option."),
    ]


class SessionInfo(AcpModel):
    """
    Information about a session returned by session/list
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="Unique identifier for the session"),
    ]
    cwd: Annotated[
        str,
        Field(description="The working directory for this session. Must be an absolute path."),
    ]
    additional_directories: Annotated[
        list[str] | None,
        Field(
            alias="additionalDirectories",
            description="Additional workspace roots reported for this session. Each path must be absolute.\n\nWhen present, this is the complete ordered additional-root list reported\nby the Agent. Omitted and empty values are equivalent: the response\nreports no additional roots.",
        ),
    ] = None
    title: Annotated[str | None, Field(description="Human-readable title for the session")] = None
    updated_at: Annotated[
        str | None,
        Field(alias="updatedAt", description="ISO 8601 timestamp of last activity"),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class DeleteSessionResponse(AcpModel):
    """
    Response from deleting a session.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CloseSessionResponse(AcpModel):
    """
    Response from closing a session.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SetSessionModeResponse(AcpModel):
    """
    Response to `session/set_mode` method.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


StopReason = TypeAliasType(
    "StopReason",
    Annotated[
        Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"],
        Field(
            description="Reasons why an agent stops processing a prompt turn.\n\nSee protocol docs: [Stop Reasons](https://agentclientprotocol.com/protocol/prompt-turn#stop-reasons)"
        ),
    ],
)


ExtResponse = TypeAliasType(
    "ExtResponse",
    Annotated[
        Any,
        Field(
            description="Allows for sending an arbitrary response to an [`ExtRequest`] that is not part of the ACP spec.\nExtension methods provide a way to add custom functionality while maintaining\nprotocol compatibility.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)"
        ),
    ],
)


ErrorCode = TypeAliasType(
    "ErrorCode",
    Annotated[
        Literal[-32700]
        | Literal[-32600]
        | Literal[-32601]
        | Literal[-32602]
        | Literal[-32603]
        | Literal[-32800]
        | Literal[-32000]
        | Literal[-32002]
        | int,
        Field(
            description="Predefined error codes for common JSON-RPC and ACP-specific errors.\n\nThese codes follow the JSON-RPC 2.0 specification for standard errors\nand use the reserved range (-32000 to -32099) for protocol-specific errors."
        ),
    ],
)


MessageId = TypeAliasType(
    "MessageId",
    Annotated[str, Field(description="Unique identifier for a message within a session.")],
)


PlanEntryPriority = TypeAliasType(
    "PlanEntryPriority",
    Annotated[
        Literal["high", "medium", "low"],
        Field(
            description="Priority levels for plan entries.\n\nUsed to indicate the relative importance or urgency of different\ntasks in the execution plan.\nSee protocol docs: [Plan Entries](https://agentclientprotocol.com/protocol/agent-plan#plan-entries)"
        ),
    ],
)


PlanEntryStatus = TypeAliasType(
    "PlanEntryStatus",
    Annotated[
        Literal["pending", "in_progress", "completed"],
        Field(
            description="Status of a plan entry in the execution flow.\n\nTracks the lifecycle of each task from planning through completion.\nSee protocol docs: [Plan Entries](https://agentclientprotocol.com/protocol/agent-plan#plan-entries)"
        ),
    ],
)


class UnstructuredCommandInput(AcpModel):
    """
    All text that was typed after the command name is provided as input.
    """

    hint: Annotated[
        str,
        Field(description="A hint to display when the input hasn't been provided yet"),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CurrentModeUpdate(AcpModel):
    """
    The current mode of the session has changed

    See protocol docs: [Session Modes](https://agentclientprotocol.com/protocol/session-modes)
    """

    current_mode_id: Annotated[
        SessionModeId,
        Field(alias="currentModeId", description="The ID of the current mode"),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionInfoUpdate(AcpModel):
    """
    Update to session metadata. All fields are optional to support partial updates.

    Agents send this notification to update session information like title or custom metadata.
    This allows clients to display dynamic session names and track session state changes.
    """

    title: Annotated[
        str | None,
        Field(description="Human-readable title for the session. Set to null to clear."),
    ] = None
    updated_at: Annotated[
        str | None,
        Field(
            alias="updatedAt",
            description="ISO 8601 timestamp of last activity. Set to null to clear.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class Cost(AcpModel):
    """
    Cost information for a session.
    """

    amount: Annotated[float, Field(description="Total cumulative cost for session.")]
    currency: Annotated[str, Field(description='ISO 4217 currency code (e.g., "USD", "EUR").')]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class UsageUpdate(AcpModel):
    """
    Context window and cost update for a session.
    """

    used: Annotated[int, Field(description="Tokens currently in context.", ge=0)]
    size: Annotated[int, Field(description="Total context window size in tokens.", ge=0)]
    cost: Annotated[Cost | None, Field(description="Cumulative session cost (optional).")] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CompleteElicitationNotification(AcpModel):
    """
    Notification sent by the agent when a URL-based elicitation is complete.
    """

    elicitation_id: Annotated[
        ElicitationId,
        Field(
            alias="elicitationId",
            description="The ID of the elicitation that completed.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


ExtNotification = TypeAliasType(
    "ExtNotification",
    Annotated[
        Any,
        Field(
            description="Allows the Agent to send an arbitrary notification that is not part of the ACP spec.\nExtension notifications provide a way to send one-way messages for custom functionality\nwhile maintaining protocol compatibility.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)"
        ),
    ],
)


class FileSystemCapabilities(AcpModel):
    """
    File system capabilities that a client may support.

    See protocol docs: [FileSystem](https://agentclientprotocol.com/protocol/initialization#filesystem)
    """

    read_text_file: Annotated[
        bool | None,
        Field(
            alias="readTextFile",
            description="Whether the Client supports `fs/read_text_file` requests.",
        ),
    ] = False
    write_text_file: Annotated[
        bool | None,
        Field(
            alias="writeTextFile",
            description="Whether the Client supports `fs/write_text_file` requests.",
        ),
    ] = False
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class BooleanConfigOptionCapabilities(AcpModel):
    """
    Capabilities for boolean session configuration options.

    Supplying `{}` means the client supports boolean session configuration options.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AuthCapabilities(AcpModel):
    """
    Authentication capabilities supported by the client.

    Advertised during initialization to inform the agent which authentication
    method types the client can handle. This governs opt-in types that require
    additional client-side support.
    """

    terminal: Annotated[
        bool | None,
        Field(
            description="Whether the client supports `terminal` authentication methods.\n\nThe client should set this to `true` only when it can reproduce the\nconfigured agent invocation in an interactive terminal. When `true`, the\nagent may include `terminal` entries in its authentication methods."
        ),
    ] = False
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ElicitationFormCapabilities(AcpModel):
    """
    Form-based elicitation capabilities.

    Supplying `{}` means the client supports form-based elicitation.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ElicitationUrlCapabilities(AcpModel):
    """
    URL-based elicitation capabilities.

    Supplying `{}` means the client supports URL-based elicitation.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AuthenticateRequest(AcpModel):
    """
    Request parameters for the authenticate method.

    Specifies which authentication method to use.
    """

    method_id: Annotated[
        AuthMethodId,
        Field(
            alias="methodId",
            description="The ID of the authentication method to use.\nMust be one of the methods advertised in the initialize response.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class LogoutRequest(AcpModel):
    """
    Request parameters for the logout method.

    Terminates the current authenticated session.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class HttpHeader(AcpModel):
    """
    An HTTP header to set when making requests to the MCP server.
    """

    name: Annotated[str, Field(description="The name of the HTTP header.")]
    value: Annotated[str, Field(description="The value to set for the HTTP header.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class McpServerHttp(AcpModel):
    """
    HTTP transport configuration for MCP.
    """

    name: Annotated[str, Field(description="Human-readable name identifying this MCP server.")]
    url: Annotated[str, Field(description="URL to the MCP server.")]
    headers: Annotated[
        list[HttpHeader],
        Field(description="HTTP headers to set when making requests to the MCP server."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class McpServerSse(AcpModel):
    """
    SSE transport configuration for MCP.
    """

    name: Annotated[str, Field(description="Human-readable name identifying this MCP server.")]
    url: Annotated[str, Field(description="URL to the MCP server.")]
    headers: Annotated[
        list[HttpHeader],
        Field(description="HTTP headers to set when making requests to the MCP server."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class McpServerStdio(AcpModel):
    """
    Stdio transport configuration for MCP.
    """

    name: Annotated[str, Field(description="Human-readable name identifying this MCP server.")]
    command: Annotated[str, Field(description="Absolute path to the MCP server executable.")]
    args: Annotated[
        list[str],
        Field(description="Command-line arguments to pass to the MCP server."),
    ]
    env: Annotated[
        list[EnvVariable],
        Field(description="Environment variables to set when launching the MCP server."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ListSessionsRequest(AcpModel):
    """
    Request parameters for listing existing sessions.

    Only available if the Agent supports the `sessionCapabilities.list` capability.
    """

    cwd: Annotated[
        str | None,
        Field(description="Filter sessions by working directory. Must be an absolute path."),
    ] = None
    cursor: Annotated[
        str | None,
        Field(
            description="Opaque cursor token from a previous response's nextCursor field for cursor-based pagination"
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class DeleteSessionRequest(AcpModel):
    """
    Request parameters for deleting an existing session from `session/list`.

    Only available if the Agent supports the `sessionCapabilities.delete` capability.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The ID of the session to delete."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CloseSessionRequest(AcpModel):
    """
    Request parameters for closing an active session.

    If supported, the agent **must** cancel any ongoing work related to the session
    (treat it as if `session/cancel` was called) and then free up any resources
    associated with the session.

    Only available if the Agent supports the `sessionCapabilities.close` capability.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The ID of the session to close."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SetSessionModeRequest(AcpModel):
    """
    Request parameters for setting a session mode.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The ID of the session to set the mode for."),
    ]
    mode_id: Annotated[SessionModeId, Field(alias="modeId", description="The ID of the mode to set.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SetSessionConfigOptionRequest1(AcpModel):
    """
    A boolean value (`type: "boolean"`).
    """

    session_id: Annotated[
        SessionId,
        Field(
            alias="sessionId",
            description="The ID of the session to set the configuration option for.",
        ),
    ]
    config_id: Annotated[
        SessionConfigId,
        Field(alias="configId", description="The ID of the configuration option to set."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    value: Annotated[bool, Field(description="The boolean value.")]
    type: Literal["boolean"]


class SetSessionConfigOptionRequest2(AcpModel):
    """
    A [`SessionConfigValueId`] string value.

    This is the default when `type` is absent on the wire. Unknown `type`
    values with string payloads also gracefully deserialize into this
    variant.
    """

    session_id: Annotated[
        SessionId,
        Field(
            alias="sessionId",
            description="The ID of the session to set the configuration option for.",
        ),
    ]
    config_id: Annotated[
        SessionConfigId,
        Field(alias="configId", description="The ID of the configuration option to set."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    value: Annotated[SessionConfigValueId, Field(description="The value ID.")]


SetSessionConfigOptionRequest = TypeAliasType(
    "SetSessionConfigOptionRequest",
    Annotated[
        SetSessionConfigOptionRequest1 | SetSessionConfigOptionRequest2,
        Field(description="Request parameters for setting a session configuration option."),
    ],
)


class WriteTextFileResponse(AcpModel):
    """
    Response to `fs/write_text_file`
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ReadTextFileResponse(AcpModel):
    """
    Response containing the contents of a text file.
    """

    content: Annotated[str, Field(description="Content payload returned by this response.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class RequestPermissionOutcomeCancelled(AcpModel):
    """
    The prompt turn was cancelled before the user responded.

    When a client sends a `session/cancel` notification to cancel an ongoing
    prompt turn, it MUST respond to all pending `session/request_permission`
    requests with this `Cancelled` outcome.

    See protocol docs: [Cancellation](https://agentclientprotocol.com/protocol/prompt-turn#cancellation)
    """

    outcome: Literal["cancelled"]


class SelectedPermissionOutcome(AcpModel):
    """
    The user selected one of the provided options.
    """

    option_id: Annotated[
        PermissionOptionId,
        Field(alias="optionId", description="The ID of the option the user selected."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CreateTerminalResponse(AcpModel):
    """
    Response containing the ID of the created terminal.
    """

    terminal_id: Annotated[
        TerminalId,
        Field(
            alias="terminalId",
            description="The unique identifier for the created terminal.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class TerminalExitStatus(AcpModel):
    """
    Exit status of a terminal command.
    """

    exit_code: Annotated[
        int | None,
        Field(
            alias="exitCode",
            description="The process exit code (may be null if terminated by signal).",
            ge=0,
        ),
    ] = None
    signal: Annotated[
        str | None,
        Field(description="The signal that terminated the process (may be null if exited normally)."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ReleaseTerminalResponse(AcpModel):
    """
    Response to terminal/release method
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class WaitForTerminalExitResponse(AcpModel):
    """
    Response containing the exit status of a terminal command.
    """

    exit_code: Annotated[
        int | None,
        Field(
            alias="exitCode",
            description="The process exit code (may be null if terminated by signal).",
            ge=0,
        ),
    ] = None
    signal: Annotated[
        str | None,
        Field(description="The signal that terminated the process (may be null if exited normally)."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class KillTerminalResponse(AcpModel):
    """
    Response to `terminal/kill` method
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CreateElicitationResponse2(AcpModel):
    """
    The user declined the elicitation.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    action: Literal["decline"]


class CreateElicitationResponse3(AcpModel):
    """
    The elicitation was cancelled.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    action: Literal["cancel"]


class CreateElicitationResponse4(AcpModel):
    """
    Custom or future elicitation action.

    Values beginning with `_` are reserved for implementation-specific
    extensions. Unknown values that do not begin with `_` are reserved for
    future ACP variants.

    Agents that do not understand this action should preserve the raw
    payload when storing, replaying, proxying, or forwarding elicitation
    responses. They MUST NOT treat it as a known elicitation action.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    action: Annotated[
        str,
        Field(
            description="Custom or future elicitation action.\n\nValues beginning with `_` are reserved for implementation-specific\nextensions. Unknown values that do not begin with `_` are reserved for\nfuture ACP variants."
        ),
    ]


ElicitationContentValue = TypeAliasType(
    "ElicitationContentValue",
    Annotated[
        str | int | float | bool | list[str],
        Field(description="Allowed wire representations for [`ElicitationContentValue`]."),
    ],
)


class ElicitationAcceptAction(AcpModel):
    """
    The user accepted the elicitation and provided content.
    """

    content: Annotated[
        dict[str, Any] | None,
        Field(description="The user-provided content, if any, as an object matching the requested schema."),
    ] = None


class CancelNotification(AcpModel):
    """
    Notification to cancel ongoing operations for a session.

    See protocol docs: [Cancellation](https://agentclientprotocol.com/protocol/prompt-turn#cancellation)
    """

    session_id: Annotated[
        SessionId,
        Field(
            alias="sessionId",
            description="The ID of the session to cancel operations for.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CancelRequestNotification(AcpModel):
    """
    Notification to cancel an ongoing request.

    See protocol docs: [Cancellation](https://agentclientprotocol.com/protocol/cancellation)
    """

    request_id: Annotated[
        RequestId,
        Field(alias="requestId", description="The ID of the request to cancel."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AgentClientProtocol7(AcpModel):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]
    method: Annotated[str, Field(description="The notification method name.")]
    params: Annotated[
        CancelRequestNotification | None,
        Field(description="Method-specific notification parameters."),
    ] = None


class WriteTextFileRequest(AcpModel):
    """
    Request to write content to a text file.

    Only available if the client supports the `fs.writeTextFile` capability.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The session ID for this request."),
    ]
    path: Annotated[str, Field(description="Absolute path to the file to write.")]
    content: Annotated[str, Field(description="The text content to write to the file.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ToolCallContentDiff(Diff):
    """
    File modification shown as a diff.
    """

    type: Literal["diff"]


class ToolCallContentTerminal(Terminal):
    """
    Embed a terminal created with `terminal/create` by its id.

    The terminal must be added before calling `terminal/release`.

    See protocol docs: [Terminal](https://agentclientprotocol.com/protocol/terminals)
    """

    type: Literal["terminal"]


class Annotations(AcpModel):
    """
    Optional annotations for the client. The client can use annotations to inform how objects are used or displayed
    """

    audience: Annotated[
        list[Role] | None,
        Field(description="Intended recipients for this content, such as the user or assistant."),
    ] = None
    last_modified: Annotated[
        str | None,
        Field(
            alias="lastModified",
            description="Timestamp indicating when the underlying resource was last modified.",
        ),
    ] = None
    priority: Annotated[
        float | None,
        Field(description="Relative importance of this content when clients choose what to surface."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class TextContent(AcpModel):
    """
    Text provided to or from an LLM.
    """

    annotations: Annotated[
        Annotations | None,
        Field(description="Optional annotations that help clients decide how to display or route this content."),
    ] = None
    text: Annotated[str, Field(description="Text payload carried by this content block.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ImageContent(AcpModel):
    """
    An image provided to or from an LLM.
    """

    annotations: Annotated[
        Annotations | None,
        Field(description="Optional annotations that help clients decide how to display or route this content."),
    ] = None
    data: Annotated[str, Field(description="Base64-encoded media payload.")]
    mime_type: Annotated[
        str,
        Field(
            alias="mimeType",
            description="MIME type describing the encoded media payload.",
        ),
    ]
    uri: Annotated[
        str | None,
        Field(description="URI associated with this resource or media payload."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AudioContent(AcpModel):
    """
    Audio provided to or from an LLM.
    """

    annotations: Annotated[
        Annotations | None,
        Field(description="Optional annotations that help clients decide how to display or route this content."),
    ] = None
    data: Annotated[str, Field(description="Base64-encoded media payload.")]
    mime_type: Annotated[
        str,
        Field(
            alias="mimeType",
            description="MIME type describing the encoded media payload.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ResourceLink(AcpModel):
    """
    A resource that the server is capable of reading, included in a prompt or tool call result.
    """

    annotations: Annotated[
        Annotations | None,
        Field(description="Optional annotations that help clients decide how to display or route this content."),
    ] = None
    description: Annotated[
        str | None,
        Field(description="Optional human-readable details shown with this protocol object."),
    ] = None
    mime_type: Annotated[
        str | None,
        Field(
            alias="mimeType",
            description="MIME type describing the encoded media payload.",
        ),
    ] = None
    name: Annotated[str, Field(description="Human-readable name shown for this protocol object.")]
    size: Annotated[
        int | None,
        Field(description="Optional size of the linked resource in bytes, if known."),
    ] = None
    title: Annotated[str | None, Field(description="Optional display title for end-user UI.")] = None
    uri: Annotated[str, Field(description="URI associated with this resource or media payload.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


EmbeddedResourceResource = TypeAliasType(
    "EmbeddedResourceResource",
    Annotated[
        TextResourceContents | BlobResourceContents,
        Field(description="Resource content that can be embedded in a message."),
    ],
)


class EmbeddedResource(AcpModel):
    """
    The contents of a resource, embedded into a prompt or tool call result.
    """

    annotations: Annotated[
        Annotations | None,
        Field(description="Optional annotations that help clients decide how to display or route this content."),
    ] = None
    resource: Annotated[
        EmbeddedResourceResource,
        Field(description="Embedded resource payload, either text or binary data."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class PermissionOption(AcpModel):
    """
    An option presented to the user when requesting permission.
    """

    option_id: Annotated[
        PermissionOptionId,
        Field(
            alias="optionId",
            description="Unique identifier for this permission option.",
        ),
    ]
    name: Annotated[str, Field(description="Human-readable label to display to the user.")]
    kind: Annotated[
        PermissionOptionKind,
        Field(description="Hint about the nature of this permission option."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CreateTerminalRequest(AcpModel):
    """
    Request to create a new terminal and execute a command.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The session ID for this request."),
    ]
    command: Annotated[str, Field(description="The command to execute.")]
    args: Annotated[list[str] | None, Field(description="Array of command arguments.")] = None
    env: Annotated[
        list[EnvVariable] | None,
        Field(description="Environment variables for the command."),
    ] = None
    cwd: Annotated[
        str | None,
        Field(description="Working directory for the command. Must be an absolute path."),
    ] = None
    output_byte_limit: Annotated[
        int | None,
        Field(
            alias="outputByteLimit",
            description="Maximum number of output bytes to retain.\n\nWhen the limit is exceeded, the Client truncates from the beginning of the output\nto stay within the limit.\n\nThe Client MUST ensure truncation happens at a character boundary to maintain valid\nstring output, even if this means the retained output is slightly less than the\nspecified limit.",
            ge=0,
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CreateElicitationRequest21(ElicitationSessionScope):
    """
    Tied to a session, optionally to a specific tool call within that session.
    """

    elicitation_id: Annotated[
        ElicitationId,
        Field(
            alias="elicitationId",
            description="The unique identifier for this elicitation.",
        ),
    ]
    url: Annotated[str, Field(description="The URL to direct the user to.")]


class CreateElicitationRequest22(ElicitationRequestScope):
    """
    Tied to a specific JSON-RPC request outside of a session
    (e.g., during auth/configuration phases before any session is started).
    """

    elicitation_id: Annotated[
        ElicitationId,
        Field(
            alias="elicitationId",
            description="The unique identifier for this elicitation.",
        ),
    ]
    url: Annotated[str, Field(description="The URL to direct the user to.")]


class CreateElicitationRequest24(
    CreateElicitationRequest21,
    CreateElicitationRequest23,
):
    """
    URL-based elicitation where the client directs the user to a URL.
    """

    message: Annotated[
        str,
        Field(description="A human-readable message describing what input is needed."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    mode: Literal["url"]


class CreateElicitationRequest25(
    CreateElicitationRequest22,
    CreateElicitationRequest23,
):
    """
    URL-based elicitation where the client directs the user to a URL.
    """

    message: Annotated[
        str,
        Field(description="A human-readable message describing what input is needed."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    mode: Literal["url"]


CreateElicitationRequest2 = TypeAliasType(
    "CreateElicitationRequest2",
    Annotated[
        CreateElicitationRequest24 | CreateElicitationRequest25,
        Field(description="URL-based elicitation where the client directs the user to a URL."),
    ],
)
"""
URL-based elicitation where the client directs the user to a URL.
"""


class CreateElicitationRequest3(ElicitationSessionScope):
    """
    Tied to a session, optionally to a specific tool call within that session.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    message: Annotated[
        str,
        Field(description="A human-readable message describing what input is needed."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    mode: Annotated[
        str,
        Field(
            description="Custom or future elicitation mode.\n\nValues beginning with `_` are reserved for implementation-specific\nextensions. Unknown values that do not begin with `_` are reserved for\nfuture ACP variants."
        ),
    ]


class CreateElicitationRequest4(ElicitationRequestScope):
    """
    Tied to a specific JSON-RPC request outside of a session
    (e.g., during auth/configuration phases before any session is started).
    """

    model_config = ConfigDict(
        extra="allow",
    )
    message: Annotated[
        str,
        Field(description="A human-readable message describing what input is needed."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    mode: Annotated[
        str,
        Field(
            description="Custom or future elicitation mode.\n\nValues beginning with `_` are reserved for implementation-specific\nextensions. Unknown values that do not begin with `_` are reserved for\nfuture ACP variants."
        ),
    ]


class ElicitationPropertySchema1(StringPropertySchema):
    """
    String property (or single-select enum when `enum`/`oneOf` is set).
    """

    type: Literal["string"]


class ElicitationPropertySchema2(NumberPropertySchema):
    """
    Number (floating-point) property.
    """

    type: Literal["number"]


class ElicitationPropertySchema3(IntegerPropertySchema):
    """
    Integer property.
    """

    type: Literal["integer"]


class ElicitationPropertySchema4(BooleanPropertySchema):
    """
    Boolean property.
    """

    type: Literal["boolean"]


class MultiSelectItems1(StringMultiSelectItems):
    """
    Multi-select string items with plain string values.
    """

    type: Literal["string"]


MultiSelectItems = TypeAliasType(
    "MultiSelectItems",
    Annotated[
        MultiSelectItems1 | MultiSelectItems2 | TitledMultiSelectItems,
        Field(description="Items for a multi-select (array) property schema."),
    ],
)


class MultiSelectPropertySchema(AcpModel):
    """
    Schema for multi-select (array) properties in an elicitation form.
    """

    title: Annotated[
        str | None,
        Field(
            description="Optional title for the property.\n\nOptional. Omitted and `null` are equivalent and mean no title is provided."
        ),
    ] = None
    description: Annotated[
        str | None,
        Field(
            description="Human-readable description.\n\nOptional. Omitted and `null` are equivalent and mean no description is provided."
        ),
    ] = None
    min_items: Annotated[
        int | None,
        Field(
            alias="minItems",
            description="Minimum number of items to select.\n\nOptional. Omitted and `null` are equivalent and mean there is no minimum selection count.",
            ge=0,
        ),
    ] = None
    max_items: Annotated[
        int | None,
        Field(
            alias="maxItems",
            description="Maximum number of items to select.\n\nOptional. Omitted and `null` are equivalent and mean there is no maximum selection count.",
            ge=0,
        ),
    ] = None
    items: Annotated[
        MultiSelectItems,
        Field(description="The items definition describing allowed values."),
    ]
    default: Annotated[
        list[str] | None,
        Field(
            description="Default selected values.\n\nOptional. Omitted and `null` are equivalent and mean no default selections are provided."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionCapabilities(AcpModel):
    """
    Session capabilities supported by the agent.

    As a baseline, all Agents **MUST** support `session/new`, `session/prompt`, `session/cancel`, and `session/update`.

    Optionally, they **MAY** support other session methods and notifications by specifying additional capabilities.

    Note: `session/load` is still handled by the top-level `load_session` capability. This will be unified in future versions of the protocol.

    See protocol docs: [Session Capabilities](https://agentclientprotocol.com/protocol/initialization#session-capabilities)
    """

    list: Annotated[
        SessionListCapabilities | None,
        Field(
            description="Whether the agent supports `session/list`.\n\nOptional. Omitted or `null` both mean the agent does not advertise support.\nSupplying `{}` means the agent supports listing sessions."
        ),
    ] = None
    delete: Annotated[
        SessionDeleteCapabilities | None,
        Field(
            description="Whether the agent supports `session/delete`.\n\nOptional. Omitted or `null` both mean the agent does not advertise support.\nSupplying `{}` means the agent supports deleting sessions from `session/list`."
        ),
    ] = None
    additional_directories: Annotated[
        SessionAdditionalDirectoriesCapabilities | None,
        Field(
            alias="additionalDirectories",
            description="Whether the agent supports `additionalDirectories` on supported session lifecycle requests.\n\nOptional. Omitted or `null` both mean the agent does not advertise support.\nSupplying `{}` means the agent supports `additionalDirectories` on\nsupported session lifecycle requests.\n\nAgents that also support `session/list` may return\n`SessionInfo.additionalDirectories` to report the complete ordered\nadditional-root list associated with a listed session.",
        ),
    ] = None
    resume: Annotated[
        SessionResumeCapabilities | None,
        Field(
            description="Whether the agent supports `session/resume`.\n\nOptional. Omitted or `null` both mean the agent does not advertise support.\nSupplying `{}` means the agent supports resuming sessions."
        ),
    ] = None
    close: Annotated[
        SessionCloseCapabilities | None,
        Field(
            description="Whether the agent supports `session/close`.\n\nOptional. Omitted or `null` both mean the agent does not advertise support.\nSupplying `{}` means the agent supports closing sessions."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AgentAuthCapabilities(AcpModel):
    """
    Authentication-related capabilities supported by the agent.
    """

    logout: Annotated[
        LogoutCapabilities | None,
        Field(
            description="Whether the agent supports the logout method.\n\nOptional. Omitted or `null` both mean the agent does not advertise support.\nSupplying `{}` means the agent supports the logout method."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AuthMethod1(AuthMethodTerminal):
    """
    Client runs the configured agent program as a separate interactive
    process, without passing this method to `authenticate`.
    """

    type: Literal["terminal"]


AuthMethod = TypeAliasType(
    "AuthMethod",
    Annotated[
        AuthMethod1 | AuthMethodAgent,
        Field(
            description="Describes an available authentication method.\n\nThe `type` field acts as the discriminator in the serialized JSON form.\nWhen no `type` is present, the method is treated as `agent`."
        ),
    ],
)


class SessionModeState(AcpModel):
    """
    The set of modes and the one currently active.
    """

    current_mode_id: Annotated[
        SessionModeId,
        Field(alias="currentModeId", description="The current mode the Agent is in."),
    ]
    available_modes: Annotated[
        list[SessionMode],
        Field(
            alias="availableModes",
            description="The set of modes that the Agent can operate in",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionConfigOptionBoolean(SessionConfigBoolean):
    """
    Boolean on/off toggle.
    """

    id: Annotated[
        SessionConfigId,
        Field(description="Unique identifier for the configuration option."),
    ]
    name: Annotated[str, Field(description="Human-readable label for the option.")]
    description: Annotated[
        str | None,
        Field(description="Optional description for the Client to display to the user."),
    ] = None
    category: Annotated[
        SessionConfigOptionCategory | None,
        Field(description="Optional semantic category for this option (UX only)."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    type: Literal["boolean"]


class SessionConfigSelectGroup(AcpModel):
    """
    A group of possible values for a session configuration option.
    """

    group: Annotated[SessionConfigGroupId, Field(description="Unique identifier for this group.")]
    name: Annotated[str, Field(description="Human-readable label for this group.")]
    options: Annotated[
        list[SessionConfigSelectOption],
        Field(description="The set of option values in this group."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ListSessionsResponse(AcpModel):
    """
    Response from listing sessions.
    """

    sessions: Annotated[list[SessionInfo], Field(description="Array of session information objects")]
    next_cursor: Annotated[
        str | None,
        Field(
            alias="nextCursor",
            description="Opaque cursor token. If present, pass this in the next request's cursor parameter\nto fetch the next page. If absent, there are no more results.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class PromptResponse(AcpModel):
    """
    Response from processing a user prompt.

    See protocol docs: [Check for Completion](https://agentclientprotocol.com/protocol/prompt-turn#4-check-for-completion)
    """

    stop_reason: Annotated[
        StopReason,
        Field(
            alias="stopReason",
            description="Indicates why the agent stopped processing the turn.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class Error(AcpModel):
    """
    JSON-RPC error object.

    Represents an error that occurred during method execution, following the
    JSON-RPC 2.0 error object specification with optional additional data.

    See protocol docs: [JSON-RPC Error Object](https://www.jsonrpc.org/specification#error_object)
    """

    code: Annotated[
        ErrorCode,
        Field(
            description="A number indicating the error type that occurred.\nThis must be an integer as defined in the JSON-RPC specification."
        ),
    ]
    message: Annotated[
        str,
        Field(
            description="A string providing a short description of the error.\nThe message should be limited to a concise single sentence."
        ),
    ]
    data: Annotated[
        Any | None,
        Field(
            description="Optional primitive or structured value that contains additional information about the error.\nThis may include debugging information or context-specific details."
        ),
    ] = None


class SessionUpdateCurrentModeUpdate(CurrentModeUpdate):
    """
    The current mode of the session has changed

    See protocol docs: [Session Modes](https://agentclientprotocol.com/protocol/session-modes)
    """

    session_update: Annotated[Literal["current_mode_update"], Field(alias="sessionUpdate")]


class SessionUpdateSessionInfoUpdate(SessionInfoUpdate):
    """
    Session metadata has been updated (title, timestamps, custom metadata)
    """

    session_update: Annotated[Literal["session_info_update"], Field(alias="sessionUpdate")]


class SessionUpdateUsageUpdate(UsageUpdate):
    """
    Context window and cost update for the session.
    """

    session_update: Annotated[Literal["usage_update"], Field(alias="sessionUpdate")]


class PlanEntry(AcpModel):
    """
    A single entry in the execution plan.

    Represents a task or goal that the assistant intends to accomplish
    as part of fulfilling the user's request.
    See protocol docs: [Plan Entries](https://agentclientprotocol.com/protocol/agent-plan#plan-entries)
    """

    content: Annotated[
        str,
        Field(description="Human-readable description of what this task aims to accomplish."),
    ]
    priority: Annotated[
        PlanEntryPriority,
        Field(
            description="The relative importance of this task.\nUsed to indicate which tasks are most critical to the overall goal."
        ),
    ]
    status: Annotated[PlanEntryStatus, Field(description="Current execution status of this task.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class Plan(AcpModel):
    """
    An execution plan for accomplishing complex tasks.

    Plans consist of multiple entries representing individual tasks or goals.
    Agents report plans to clients to provide visibility into their execution strategy.
    Plans can evolve during execution as the agent discovers new requirements or completes tasks.

    See protocol docs: [Agent Plan](https://agentclientprotocol.com/protocol/agent-plan)
    """

    entries: Annotated[
        list[PlanEntry],
        Field(
            description="The list of tasks to be accomplished.\n\nWhen updating a plan, the agent must send a complete list of all entries\nwith their current status. The client replaces the entire plan with each update."
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


AvailableCommandInput = TypeAliasType(
    "AvailableCommandInput",
    Annotated[
        UnstructuredCommandInput,
        Field(description="The input specification for a command."),
    ],
)


class SessionConfigOptionsCapabilities(AcpModel):
    """
    Session configuration option capabilities supported by the client.
    """

    boolean: Annotated[
        BooleanConfigOptionCapabilities | None,
        Field(
            description='Whether the client supports boolean session configuration options.\n\nOptional. Omitted or `null` both mean the client does not advertise support.\nSupplying `{}` means agents may include `type: "boolean"` entries in\n`configOptions`, and the client may send `session/set_config_option`\nrequests with `type: "boolean"` and a boolean `value`.'
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ElicitationCapabilities(AcpModel):
    """
    Elicitation capabilities supported by the client.
    """

    form: Annotated[
        ElicitationFormCapabilities | None,
        Field(
            description="Whether the client supports form-based elicitation.\n\nOptional. Omitted and `null` are equivalent and mean form support is not advertised.\nSupplying `{}` explicitly advertises form support."
        ),
    ] = None
    url: Annotated[
        ElicitationUrlCapabilities | None,
        Field(
            description="Whether the client supports URL-based elicitation.\n\nOptional. Omitted or `null` both mean the client does not advertise support.\nSupplying `{}` means the client supports URL-based elicitation."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class McpServerHttpModel(McpServerHttp):
    """
    HTTP transport configuration

    Only available when the Agent capabilities indicate `mcp_capabilities.http` is `true`.
    """

    type: Literal["http"]


class McpServerSseModel(McpServerSse):
    """
    SSE transport configuration

    Only available when the Agent capabilities indicate `mcp_capabilities.sse` is `true`.
    """

    type: Literal["sse"]


McpServer = TypeAliasType(
    "McpServer",
    Annotated[
        McpServerHttpModel | McpServerSseModel | McpServerStdio,
        Field(
            description="Configuration for connecting to an MCP (Model Context Protocol) server.\n\nMCP servers provide tools and context that the agent can use when\nprocessing prompts.\n\nSee protocol docs: [MCP Servers](https://agentclientprotocol.com/protocol/session-setup#mcp-servers)"
        ),
    ],
)


class LoadSessionRequest(AcpModel):
    """
    Request parameters for loading an existing session.

    Only available if the Agent supports the `loadSession` capability.

    See protocol docs: [Loading Sessions](https://agentclientprotocol.com/protocol/session-setup#loading-sessions)
    """

    mcp_servers: Annotated[
        list[McpServer],
        Field(
            alias="mcpServers",
            description="List of MCP servers to connect to for this session.",
        ),
    ]
    cwd: Annotated[
        str,
        Field(description="The working directory for this session. Must be an absolute path."),
    ]
    additional_directories: Annotated[
        list[str] | None,
        Field(
            alias="additionalDirectories",
            description="Additional workspace roots to activate for this session. Each path must be absolute.\n\nWhen omitted or empty, no additional roots are activated. When non-empty,\nthis is the complete resulting additional-root list for the loaded\nsession. It may differ from any previously used or reported list as long as\nthe request `cwd` matches the session's `cwd`.",
        ),
    ] = None
    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The ID of the session to load."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ResumeSessionRequest(AcpModel):
    """
    Request parameters for resuming an existing session.

    Resumes an existing session without returning previous messages (unlike `session/load`).
    This is useful for agents that can resume sessions but don't implement full session loading.

    Only available if the Agent supports the `sessionCapabilities.resume` capability.
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The ID of the session to resume."),
    ]
    cwd: Annotated[
        str,
        Field(description="The working directory for this session. Must be an absolute path."),
    ]
    additional_directories: Annotated[
        list[str] | None,
        Field(
            alias="additionalDirectories",
            description="Additional workspace roots to activate for this session. Each path must be absolute.\n\nWhen omitted or empty, no additional roots are activated. When non-empty,\nthis is the complete resulting additional-root list for the resumed\nsession. It may differ from any previously used or reported list as long as\nthe request `cwd` matches the session's `cwd`.",
        ),
    ] = None
    mcp_servers: Annotated[
        list[McpServer] | None,
        Field(
            alias="mcpServers",
            description="List of MCP servers to connect to for this session.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ClientResponse2(AcpModel):
    """
    A failed JSON-RPC response.
    """

    id: Annotated[RequestId, Field(description="The id of the request this response answers.")]
    error: Annotated[Error, Field(description="Method-specific error data.")]


class RequestPermissionOutcomeSelected(SelectedPermissionOutcome):
    """
    The user selected one of the provided options.
    """

    outcome: Literal["selected"]


RequestPermissionOutcome = TypeAliasType(
    "RequestPermissionOutcome",
    Annotated[
        RequestPermissionOutcomeCancelled | RequestPermissionOutcomeSelected,
        Field(description="The outcome of a permission request.", discriminator="outcome"),
    ],
)


class TerminalOutputResponse(AcpModel):
    """
    Response containing the terminal output and exit status.
    """

    output: Annotated[str, Field(description="The terminal output captured so far.")]
    truncated: Annotated[bool, Field(description="Whether the output was truncated due to byte limits.")]
    exit_status: Annotated[
        TerminalExitStatus | None,
        Field(alias="exitStatus", description="Exit status if the command has completed."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CreateElicitationResponse1(ElicitationAcceptAction):
    """
    The user accepted and provided content.
    """

    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    action: Literal["accept"]


CreateElicitationResponse = TypeAliasType(
    "CreateElicitationResponse",
    Annotated[
        CreateElicitationResponse1
        | CreateElicitationResponse2
        | CreateElicitationResponse3
        | CreateElicitationResponse4,
        Field(description="Response from the client to an elicitation request."),
    ],
)


class ClientNotification(AcpModel):
    """
    A JSON-RPC notification object.
    """

    method: Annotated[str, Field(description="The notification method name.")]
    params: Annotated[
        CancelNotification | ExtNotification | None,
        Field(description="Method-specific notification parameters."),
    ] = None


class AgentClientProtocol22(AcpModel):
    """
    A failed JSON-RPC response.
    """

    id: Annotated[RequestId, Field(description="The id of the request this response answers.")]
    error: Annotated[Error, Field(description="Method-specific error data.")]


class AgentClientProtocol25(AgentClientProtocol22, AgentClientProtocol23):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


class AgentClientProtocol52(AcpModel):
    """
    A failed JSON-RPC response.
    """

    id: Annotated[RequestId, Field(description="The id of the request this response answers.")]
    error: Annotated[Error, Field(description="Method-specific error data.")]


class AgentClientProtocol55(AgentClientProtocol52, AgentClientProtocol53):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


class AgentClientProtocol6(ClientNotification):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


class ContentBlockText(TextContent):
    """
    Text content. May be plain text or formatted with Markdown.

    All agents MUST support text content blocks in prompts.
    Clients SHOULD render this text as Markdown.
    """

    type: Literal["text"]


class ContentBlockImage(ImageContent):
    """
    Images for visual context or analysis.

    Requires the `image` prompt capability when included in prompts.
    """

    type: Literal["image"]


class ContentBlockAudio(AudioContent):
    """
    Audio data for transcription or analysis.

    Requires the `audio` prompt capability when included in prompts.
    """

    type: Literal["audio"]


class ContentBlockResourceLink(ResourceLink):
    """
    References to resources that the agent can access.

    All agents MUST support resource links in prompts.
    """

    type: Literal["resource_link"]


class ContentBlockResource(EmbeddedResource):
    """
    Complete resource contents embedded directly in the message.

    Preferred for including context as it avoids extra round-trips.

    Requires the `embeddedContext` prompt capability when included in prompts.
    """

    type: Literal["resource"]


ContentBlock = TypeAliasType(
    "ContentBlock",
    Annotated[
        ContentBlockText | ContentBlockImage | ContentBlockAudio | ContentBlockResourceLink | ContentBlockResource,
        Field(
            description="Content blocks represent displayable information in the Agent Client Protocol.\n\nThey provide a structured way to handle various types of user-facing content—whether\nit's text from language models, images for analysis, or embedded resources for context.\n\nContent blocks appear in:\n- User prompts sent via `session/prompt`\n- Language model output streamed through `session/update` notifications\n- Progress updates and results from tool calls\n\nThis structure is compatible with the Model Context Protocol (MCP), enabling\nagents to seamlessly forward content from MCP tool outputs without transformation.\n\nSee protocol docs: [Content](https://agentclientprotocol.com/protocol/content)",
            discriminator="type",
        ),
    ],
)


class Content(AcpModel):
    """
    Standard content block (text, images, resources).
    """

    content: Annotated[ContentBlock, Field(description="The actual content block.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ElicitationPropertySchema5(MultiSelectPropertySchema):
    """
    Multi-select array property.
    """

    type: Literal["array"]


ElicitationPropertySchema = TypeAliasType(
    "ElicitationPropertySchema",
    Annotated[
        ElicitationPropertySchema1
        | ElicitationPropertySchema2
        | ElicitationPropertySchema3
        | ElicitationPropertySchema4
        | ElicitationPropertySchema5
        | ElicitationPropertySchema6,
        Field(
            description='Property schema for elicitation form fields.\n\nEach variant corresponds to a JSON Schema `"type"` value.\nSingle-select enums use the `String` variant with `enum` or `oneOf` set.\nMulti-select enums use the `Array` variant.'
        ),
    ],
)


class AgentResponse2(AcpModel):
    """
    A failed JSON-RPC response.
    """

    id: Annotated[RequestId, Field(description="The id of the request this response answers.")]
    error: Annotated[Error, Field(description="Method-specific error data.")]


class AgentCapabilities(AcpModel):
    """
    Capabilities supported by the agent.

    Advertised during initialization to inform the client about
    available features and content types.

    See protocol docs: [Agent Capabilities](https://agentclientprotocol.com/protocol/initialization#agent-capabilities)
    """

    load_session: Annotated[
        bool | None,
        Field(
            alias="loadSession",
            description="Whether the agent supports `session/load`.",
        ),
    ] = False
    prompt_capabilities: Annotated[
        PromptCapabilities | None,
        Field(
            alias="promptCapabilities", description="Prompt capabilities supported by the agent.", validate_default=True
        ),
    ] = {
        "image": False,
        "audio": False,
        "embeddedContext": False,
    }
    mcp_capabilities: Annotated[
        McpCapabilities | None,
        Field(alias="mcpCapabilities", description="MCP capabilities supported by the agent.", validate_default=True),
    ] = {
        "http": False,
        "sse": False,
    }
    session_capabilities: Annotated[
        SessionCapabilities | None,
        Field(
            alias="sessionCapabilities",
            description="Session lifecycle and prompt capabilities advertised by the agent.",
            validate_default=True,
        ),
    ] = {}
    auth: Annotated[
        AgentAuthCapabilities | None,
        Field(
            description="Authentication-related capabilities supported by the agent.",
            validate_default=True,
        ),
    ] = {}
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


SessionConfigSelectOptions = TypeAliasType(
    "SessionConfigSelectOptions",
    Annotated[
        list[SessionConfigSelectOption] | list[SessionConfigSelectGroup],
        Field(description="Possible values for a session configuration option."),
    ],
)


class SessionConfigSelect(AcpModel):
    """
    A single-value selector (dropdown) session configuration option payload.
    """

    current_value: Annotated[
        SessionConfigValueId,
        Field(alias="currentValue", description="The currently selected value."),
    ]
    options: Annotated[SessionConfigSelectOptions, Field(description="The set of selectable options.")]


class SessionUpdatePlan(Plan):
    """
    The agent's execution plan for complex tasks.
    See protocol docs: [Agent Plan](https://agentclientprotocol.com/protocol/agent-plan)
    """

    session_update: Annotated[Literal["plan"], Field(alias="sessionUpdate")]


class ContentChunk(AcpModel):
    """
    A streamed item of content
    """

    content: Annotated[ContentBlock, Field(description="A single item of content")]
    message_id: Annotated[
        MessageId | None,
        Field(
            alias="messageId",
            description="A unique identifier for the message this chunk belongs to.\n\nAll chunks belonging to the same message share the same `messageId`.\nA change in `messageId` indicates a new message has started.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AvailableCommand(AcpModel):
    """
    Information about a command.
    """

    name: Annotated[
        str,
        Field(description="Command name (e.g., `create_plan`, `research_codebase`)."),
    ]
    description: Annotated[str, Field(description="Human-readable description of what the command does.")]
    input: Annotated[
        AvailableCommandInput | None,
        Field(description="Input for the command if required"),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AvailableCommandsUpdate(AcpModel):
    """
    Available commands are ready or have changed
    """

    available_commands: Annotated[
        list[AvailableCommand],
        Field(alias="availableCommands", description="Commands the agent can execute"),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ClientSessionCapabilities(AcpModel):
    """
    Session-related capabilities supported by the client.
    """

    config_options: Annotated[
        SessionConfigOptionsCapabilities | None,
        Field(
            alias="configOptions",
            description="Config option capabilities supported by the client.\n\nOmitted or `null` both mean the client does not advertise support for any\nconfig option extensions.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class NewSessionRequest(AcpModel):
    """
    Request parameters for creating a new session.

    See protocol docs: [Creating a Session](https://agentclientprotocol.com/protocol/session-setup#creating-a-session)
    """

    cwd: Annotated[
        str,
        Field(description="The working directory for this session. Must be an absolute path."),
    ]
    additional_directories: Annotated[
        list[str] | None,
        Field(
            alias="additionalDirectories",
            description="Additional workspace roots for this session. Each path must be absolute.\n\nThese expand the session's filesystem scope without changing `cwd`, which\nremains the base for relative paths. When omitted or empty, no\nadditional roots are activated for the new session.",
        ),
    ] = None
    mcp_servers: Annotated[
        list[McpServer],
        Field(
            alias="mcpServers",
            description="List of MCP (Model Context Protocol) servers the agent should connect to.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class PromptRequest(AcpModel):
    """
    Request parameters for sending a user prompt to the agent.

    Contains the user's message and any additional context.

    See protocol docs: [User Message](https://agentclientprotocol.com/protocol/prompt-turn#1-user-message)
    """

    session_id: Annotated[
        SessionId,
        Field(
            alias="sessionId",
            description="The ID of the session to send this user message to",
        ),
    ]
    prompt: Annotated[
        list[ContentBlock],
        Field(
            description="The blocks of content that compose the user's message.\n\nAs a baseline, the Agent MUST support [`ContentBlock::Text`] and [`ContentBlock::ResourceLink`],\nwhile other variants are optionally enabled via [`PromptCapabilities`].\n\nThe Client MUST adapt its interface according to [`PromptCapabilities`].\n\nThe client MAY include referenced pieces of context as either\n[`ContentBlock::Resource`] or [`ContentBlock::ResourceLink`].\n\nWhen available, [`ContentBlock::Resource`] is preferred\nas it avoids extra round-trips and allows the message to include\npieces of context from sources the agent may not have access to."
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class RequestPermissionResponse(AcpModel):
    """
    Response to a permission request.
    """

    outcome: Annotated[
        RequestPermissionOutcome,
        Field(description="The user's decision on the permission request."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AgentClientProtocol51(AcpModel):
    """
    A successful JSON-RPC response.
    """

    id: Annotated[RequestId, Field(description="The id of the request this response answers.")]
    result: Annotated[
        WriteTextFileResponse
        | ReadTextFileResponse
        | RequestPermissionResponse
        | CreateTerminalResponse
        | TerminalOutputResponse
        | ReleaseTerminalResponse
        | WaitForTerminalExitResponse
        | KillTerminalResponse
        | CreateElicitationResponse
        | ExtResponse,
        Field(description="Method-specific response data."),
    ]


class AgentClientProtocol54(AgentClientProtocol51, AgentClientProtocol53):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


AgentClientProtocol5 = TypeAliasType(
    "AgentClientProtocol5",
    Annotated[
        AgentClientProtocol54 | AgentClientProtocol55,
        Field(
            description='A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as\n[required by JSON-RPC 2.0 Specification][1].\n\n[1]: https://www.jsonrpc.org/specification#compatibility',
            title="Response",
        ),
    ],
)
"""
A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
[required by JSON-RPC 2.0 Specification][1].

[1]: https://www.jsonrpc.org/specification#compatibility
"""


class ToolCallContentContent(Content):
    """
    Standard content block (text, images, resources).
    """

    type: Literal["content"]


ToolCallContent = TypeAliasType(
    "ToolCallContent",
    Annotated[
        ToolCallContentContent | ToolCallContentDiff | ToolCallContentTerminal,
        Field(
            description="Content produced by a tool call.\n\nTool calls can produce different types of content including\nstandard content blocks (text, images) or file diffs.\n\nSee protocol docs: [Content](https://agentclientprotocol.com/protocol/tool-calls#content)",
            discriminator="type",
        ),
    ],
)


class ElicitationSchema(AcpModel):
    """
    Type-safe elicitation schema for requesting structured user input.

    This represents a JSON Schema object with primitive-typed properties,
    as required by the elicitation specification.
    """

    type: Annotated[
        ElicitationSchemaType | None,
        Field(description='Type discriminator. Always `"object"`.'),
    ] = "object"
    title: Annotated[
        str | None,
        Field(
            description="Optional title for the schema.\n\nOptional. Omitted and `null` are equivalent and mean no title is provided."
        ),
    ] = None
    properties: Annotated[
        dict[str, ElicitationPropertySchema] | None,
        Field(
            description="Property definitions (must be primitive types).",
            validate_default=True,
        ),
    ] = {}
    required: Annotated[
        list[str] | None,
        Field(
            description="List of required property names.\n\nOptional. Omitted and `null` are equivalent and mean no property names are required."
        ),
    ] = None
    description: Annotated[
        str | None,
        Field(
            description="Optional description of what this schema represents.\n\nOptional. Omitted and `null` are equivalent and mean no schema description is provided."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ElicitationFormMode1(ElicitationSessionScope):
    """
    Tied to a session, optionally to a specific tool call within that session.
    """

    requested_schema: Annotated[
        ElicitationSchema,
        Field(
            alias="requestedSchema",
            description="A JSON Schema describing the form fields to present to the user.",
        ),
    ]


class ElicitationFormMode2(ElicitationRequestScope):
    """
    Tied to a specific JSON-RPC request outside of a session
    (e.g., during auth/configuration phases before any session is started).
    """

    requested_schema: Annotated[
        ElicitationSchema,
        Field(
            alias="requestedSchema",
            description="A JSON Schema describing the form fields to present to the user.",
        ),
    ]


ElicitationFormMode = TypeAliasType(
    "ElicitationFormMode",
    Annotated[
        ElicitationFormMode1 | ElicitationFormMode2,
        Field(description="Form-based elicitation mode where the client renders a form from the provided schema."),
    ],
)


class InitializeResponse(AcpModel):
    """
    Response to the `initialize` method.

    Contains the negotiated protocol version and agent capabilities.

    See protocol docs: [Initialization](https://agentclientprotocol.com/protocol/initialization)
    """

    protocol_version: Annotated[
        ProtocolVersion,
        Field(
            alias="protocolVersion",
            description="The protocol version the client specified if supported by the agent,\nor the latest protocol version supported by the agent.\n\nThe client should disconnect, if it doesn't support this version.",
        ),
    ]
    agent_capabilities: Annotated[
        AgentCapabilities | None,
        Field(alias="agentCapabilities", description="Capabilities supported by the agent.", validate_default=True),
    ] = {
        "loadSession": False,
        "promptCapabilities": {
            "image": False,
            "audio": False,
            "embeddedContext": False,
        },
        "mcpCapabilities": {"http": False, "sse": False},
        "sessionCapabilities": {},
        "auth": {},
    }
    auth_methods: Annotated[
        list[AuthMethod] | None,
        Field(
            alias="authMethods",
            description="Authentication methods supported by the agent.",
            validate_default=True,
        ),
    ] = []
    agent_info: Annotated[
        Implementation | None,
        Field(
            alias="agentInfo",
            description="Information about the Agent name and version sent to the Client.\n\nNote: in future versions of the protocol, this will be required.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionConfigOptionSelect(SessionConfigSelect):
    """
    Single-value selector (dropdown).
    """

    id: Annotated[
        SessionConfigId,
        Field(description="Unique identifier for the configuration option."),
    ]
    name: Annotated[str, Field(description="Human-readable label for the option.")]
    description: Annotated[
        str | None,
        Field(description="Optional description for the Client to display to the user."),
    ] = None
    category: Annotated[
        SessionConfigOptionCategory | None,
        Field(description="Optional semantic category for this option (UX only)."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    type: Literal["select"]


SessionConfigOption = TypeAliasType(
    "SessionConfigOption",
    Annotated[
        SessionConfigOptionSelect | SessionConfigOptionBoolean,
        Field(
            description="A session configuration option selector and its current state.",
            discriminator="type",
        ),
    ],
)


class LoadSessionResponse(AcpModel):
    """
    Response from loading an existing session.
    """

    modes: Annotated[
        SessionModeState | None,
        Field(
            description="Initial mode state if supported by the Agent\n\nSee protocol docs: [Session Modes](https://agentclientprotocol.com/protocol/session-modes)"
        ),
    ] = None
    config_options: Annotated[
        list[SessionConfigOption] | None,
        Field(
            alias="configOptions",
            description="Initial session configuration options if supported by the Agent.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ResumeSessionResponse(AcpModel):
    """
    Response from resuming an existing session.
    """

    modes: Annotated[
        SessionModeState | None,
        Field(
            description="Initial mode state if supported by the Agent\n\nSee protocol docs: [Session Modes](https://agentclientprotocol.com/protocol/session-modes)"
        ),
    ] = None
    config_options: Annotated[
        list[SessionConfigOption] | None,
        Field(
            alias="configOptions",
            description="Initial session configuration options if supported by the Agent.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SetSessionConfigOptionResponse(AcpModel):
    """
    Response to `session/set_config_option` method.
    """

    config_options: Annotated[
        list[SessionConfigOption],
        Field(
            alias="configOptions",
            description="The full set of configuration options and their current values.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionUpdateUserMessageChunk(ContentChunk):
    """
    A chunk of the user's message being streamed.
    """

    session_update: Annotated[Literal["user_message_chunk"], Field(alias="sessionUpdate")]


class SessionUpdateAgentMessageChunk(ContentChunk):
    """
    A chunk of the agent's response being streamed.
    """

    session_update: Annotated[Literal["agent_message_chunk"], Field(alias="sessionUpdate")]


class SessionUpdateAgentThoughtChunk(ContentChunk):
    """
    A chunk of the agent's internal reasoning being streamed.
    """

    session_update: Annotated[Literal["agent_thought_chunk"], Field(alias="sessionUpdate")]


class SessionUpdateAvailableCommandsUpdate(AvailableCommandsUpdate):
    """
    Available commands are ready or have changed
    """

    session_update: Annotated[Literal["available_commands_update"], Field(alias="sessionUpdate")]


class ToolCall(AcpModel):
    """
    Represents a tool call that the language model has requested.

    Tool calls are actions that the agent executes on behalf of the language model,
    such as reading files, executing code, or fetching data from external sources.

    See protocol docs: [Tool Calls](https://agentclientprotocol.com/protocol/tool-calls)
    """

    tool_call_id: Annotated[
        ToolCallId,
        Field(
            alias="toolCallId",
            description="Unique identifier for this tool call within the session.",
        ),
    ]
    title: Annotated[
        str,
        Field(description="Human-readable title describing what the tool is doing."),
    ]
    kind: Annotated[
        ToolKind | None,
        Field(
            description="The category of tool being invoked.\nHelps clients choose appropriate icons and UI treatment."
        ),
    ] = None
    status: Annotated[
        ToolCallStatus | None,
        Field(description="Current execution status of the tool call."),
    ] = None
    content: Annotated[
        list[ToolCallContent] | None,
        Field(description="Content produced by the tool call."),
    ] = None
    locations: Annotated[
        list[ToolCallLocation] | None,
        Field(description='File locations affected by this tool call.\nEnables "follow-along" features in clients.'),
    ] = None
    raw_input: Annotated[
        Any | None,
        Field(alias="rawInput", description="Raw input parameters sent to the tool."),
    ] = None
    raw_output: Annotated[
        Any | None,
        Field(alias="rawOutput", description="Raw output returned by the tool."),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ConfigOptionUpdate(AcpModel):
    """
    Session configuration options have been updated.
    """

    config_options: Annotated[
        list[SessionConfigOption],
        Field(
            alias="configOptions",
            description="The full set of configuration options and their current values.",
        ),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ClientCapabilities(AcpModel):
    """
    Capabilities supported by the client.

    Advertised during initialization to inform the agent about
    available features and methods.

    See protocol docs: [Client Capabilities](https://agentclientprotocol.com/protocol/initialization#client-capabilities)
    """

    fs: Annotated[
        FileSystemCapabilities | None,
        Field(
            description="File system capabilities supported by the client.\nDetermines which file operations the agent can request.",
            validate_default=True,
        ),
    ] = {
        "readTextFile": False,
        "writeTextFile": False,
    }
    terminal: Annotated[
        bool | None,
        Field(description="Whether the Client support all `terminal/*` methods."),
    ] = False
    session: Annotated[
        ClientSessionCapabilities | None,
        Field(
            description="Session-related capabilities supported by the client.\n\nOptional. Omitted or `null` both mean the client does not advertise any\nsession-related extensions."
        ),
    ] = None
    auth: Annotated[
        AuthCapabilities | None,
        Field(
            description="Authentication capabilities supported by the client.\nDetermines which authentication method types the agent may include\nin its `InitializeResponse`.",
            validate_default=True,
        ),
    ] = {"terminal": False}
    elicitation: Annotated[
        ElicitationCapabilities | None,
        Field(
            description="Elicitation capabilities supported by the client.\nDetermines which elicitation modes the agent may use.\n\nOptional. Omitted or `null` both mean the client does not advertise\nelicitation support."
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ClientResponse1(AcpModel):
    """
    A successful JSON-RPC response.
    """

    id: Annotated[RequestId, Field(description="The id of the request this response answers.")]
    result: Annotated[
        WriteTextFileResponse
        | ReadTextFileResponse
        | RequestPermissionResponse
        | CreateTerminalResponse
        | TerminalOutputResponse
        | ReleaseTerminalResponse
        | WaitForTerminalExitResponse
        | KillTerminalResponse
        | CreateElicitationResponse
        | ExtResponse,
        Field(description="Method-specific response data."),
    ]


ClientResponse = TypeAliasType(
    "ClientResponse",
    Annotated[
        ClientResponse1 | ClientResponse2,
        Field(description="A JSON-RPC response object."),
    ],
)


class ToolCallUpdate(AcpModel):
    """
    An update to an existing tool call.

    Used to report progress and results as tools execute. All fields except
    the tool call ID are optional - only changed fields need to be included.

    See protocol docs: [Updating](https://agentclientprotocol.com/protocol/tool-calls#updating)
    """

    tool_call_id: Annotated[
        ToolCallId,
        Field(alias="toolCallId", description="The ID of the tool call being updated."),
    ]
    kind: Annotated[ToolKind | None, Field(description="Update the tool kind.")] = None
    status: Annotated[ToolCallStatus | None, Field(description="Update the execution status.")] = None
    title: Annotated[str | None, Field(description="Update the human-readable title.")] = None
    content: Annotated[
        list[ToolCallContent] | None,
        Field(description="Replace the content collection."),
    ] = None
    locations: Annotated[
        list[ToolCallLocation] | None,
        Field(description="Replace the locations collection."),
    ] = None
    raw_input: Annotated[Any | None, Field(alias="rawInput", description="Update the raw input.")] = None
    raw_output: Annotated[Any | None, Field(alias="rawOutput", description="Update the raw output.")] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class CreateElicitationRequest11(ElicitationSessionScope):
    """
    Tied to a session, optionally to a specific tool call within that session.
    """

    requested_schema: Annotated[
        ElicitationSchema,
        Field(
            alias="requestedSchema",
            description="A JSON Schema describing the form fields to present to the user.",
        ),
    ]


class CreateElicitationRequest12(ElicitationRequestScope):
    """
    Tied to a specific JSON-RPC request outside of a session
    (e.g., during auth/configuration phases before any session is started).
    """

    requested_schema: Annotated[
        ElicitationSchema,
        Field(
            alias="requestedSchema",
            description="A JSON Schema describing the form fields to present to the user.",
        ),
    ]


class CreateElicitationRequest14(
    CreateElicitationRequest11,
    CreateElicitationRequest13,
):
    """
    Form-based elicitation where the client renders a form from the provided schema.
    """

    message: Annotated[
        str,
        Field(description="A human-readable message describing what input is needed."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    mode: Literal["form"]


class CreateElicitationRequest15(
    CreateElicitationRequest12,
    CreateElicitationRequest13,
):
    """
    Form-based elicitation where the client renders a form from the provided schema.
    """

    message: Annotated[
        str,
        Field(description="A human-readable message describing what input is needed."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nOptional. Omitted and `null` are equivalent and mean no metadata.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None
    mode: Literal["form"]


CreateElicitationRequest1 = TypeAliasType(
    "CreateElicitationRequest1",
    Annotated[
        CreateElicitationRequest14 | CreateElicitationRequest15,
        Field(description="Form-based elicitation where the client renders a form from the provided schema."),
    ],
)
"""
Form-based elicitation where the client renders a form from the provided schema.
"""


CreateElicitationRequest = TypeAliasType(
    "CreateElicitationRequest",
    Annotated[
        CreateElicitationRequest1 | CreateElicitationRequest2 | CreateElicitationRequest3 | CreateElicitationRequest4,
        Field(
            description="Request from the agent to elicit structured user input.\n\nThe agent sends this to the client to request information from the user,\neither via a form or by directing them to a URL.\nElicitations are tied to a session (optionally a tool call) or a request."
        ),
    ],
)


class NewSessionResponse(AcpModel):
    """
    Response from creating a new session.

    See protocol docs: [Creating a Session](https://agentclientprotocol.com/protocol/session-setup#creating-a-session)
    """

    session_id: Annotated[
        SessionId,
        Field(
            alias="sessionId",
            description="Unique identifier for the created session.\n\nUsed in all subsequent requests for this conversation.",
        ),
    ]
    modes: Annotated[
        SessionModeState | None,
        Field(
            description="Initial mode state if supported by the Agent\n\nSee protocol docs: [Session Modes](https://agentclientprotocol.com/protocol/session-modes)"
        ),
    ] = None
    config_options: Annotated[
        list[SessionConfigOption] | None,
        Field(
            alias="configOptions",
            description="Initial session configuration options if supported by the Agent.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class SessionUpdateToolCall(ToolCall):
    """
    Notification that a new tool call has been initiated.
    """

    session_update: Annotated[Literal["tool_call"], Field(alias="sessionUpdate")]


class SessionUpdateToolCallUpdate(ToolCallUpdate):
    """
    Update on the status or results of a tool call.
    """

    session_update: Annotated[Literal["tool_call_update"], Field(alias="sessionUpdate")]


class SessionUpdateConfigOptionUpdate(ConfigOptionUpdate):
    """
    Session configuration options have been updated.
    """

    session_update: Annotated[Literal["config_option_update"], Field(alias="sessionUpdate")]


SessionUpdate = TypeAliasType(
    "SessionUpdate",
    Annotated[
        SessionUpdateUserMessageChunk
        | SessionUpdateAgentMessageChunk
        | SessionUpdateAgentThoughtChunk
        | SessionUpdateToolCall
        | SessionUpdateToolCallUpdate
        | SessionUpdatePlan
        | SessionUpdateAvailableCommandsUpdate
        | SessionUpdateCurrentModeUpdate
        | SessionUpdateConfigOptionUpdate
        | SessionUpdateSessionInfoUpdate
        | SessionUpdateUsageUpdate,
        Field(
            description="Different types of updates that can be sent during session processing.\n\nThese updates provide real-time feedback about the agent's progress.\n\nSee protocol docs: [Agent Reports Output](https://agentclientprotocol.com/protocol/prompt-turn#3-agent-reports-output)",
            discriminator="session_update",
        ),
    ],
)


class InitializeRequest(AcpModel):
    """
    Request parameters for the initialize method.

    Sent by the client to establish connection and negotiate capabilities.

    See protocol docs: [Initialization](https://agentclientprotocol.com/protocol/initialization)
    """

    protocol_version: Annotated[
        ProtocolVersion,
        Field(
            alias="protocolVersion",
            description="The latest protocol version supported by the client.",
        ),
    ]
    client_capabilities: Annotated[
        ClientCapabilities | None,
        Field(alias="clientCapabilities", description="Capabilities supported by the client.", validate_default=True),
    ] = {
        "fs": {"readTextFile": False, "writeTextFile": False},
        "terminal": False,
        "auth": {"terminal": False},
    }
    client_info: Annotated[
        Implementation | None,
        Field(
            alias="clientInfo",
            description="Information about the Client name and version sent to the Agent.\n\nNote: in future versions of the protocol, this will be required.",
        ),
    ] = None
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AgentClientProtocol21(AcpModel):
    """
    A successful JSON-RPC response.
    """

    id: Annotated[RequestId, Field(description="The id of the request this response answers.")]
    result: Annotated[
        InitializeResponse
        | AuthenticateResponse
        | LogoutResponse
        | NewSessionResponse
        | LoadSessionResponse
        | ListSessionsResponse
        | DeleteSessionResponse
        | ResumeSessionResponse
        | CloseSessionResponse
        | SetSessionModeResponse
        | SetSessionConfigOptionResponse
        | PromptResponse
        | ExtResponse,
        Field(description="Method-specific response data."),
    ]


class AgentClientProtocol24(AgentClientProtocol21, AgentClientProtocol23):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


AgentClientProtocol2 = TypeAliasType(
    "AgentClientProtocol2",
    Annotated[
        AgentClientProtocol24 | AgentClientProtocol25,
        Field(
            description='A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as\n[required by JSON-RPC 2.0 Specification][1].\n\n[1]: https://www.jsonrpc.org/specification#compatibility',
            title="Response",
        ),
    ],
)
"""
A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
[required by JSON-RPC 2.0 Specification][1].

[1]: https://www.jsonrpc.org/specification#compatibility
"""


class RequestPermissionRequest(AcpModel):
    """
    Request for user permission to execute a tool call.

    Sent when the agent needs authorization before performing a sensitive operation.

    See protocol docs: [Requesting Permission](https://agentclientprotocol.com/protocol/tool-calls#requesting-permission)
    """

    session_id: Annotated[
        SessionId,
        Field(alias="sessionId", description="The session ID for this request."),
    ]
    tool_call: Annotated[
        ToolCallUpdate,
        Field(
            alias="toolCall",
            description="Details about the tool call requiring permission.",
        ),
    ]
    options: Annotated[
        list[PermissionOption],
        Field(description="Available permission options for the user to choose from."),
    ]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class AgentResponse1(AcpModel):
    """
    A successful JSON-RPC response.
    """

    id: Annotated[RequestId, Field(description="The id of the request this response answers.")]
    result: Annotated[
        InitializeResponse
        | AuthenticateResponse
        | LogoutResponse
        | NewSessionResponse
        | LoadSessionResponse
        | ListSessionsResponse
        | DeleteSessionResponse
        | ResumeSessionResponse
        | CloseSessionResponse
        | SetSessionModeResponse
        | SetSessionConfigOptionResponse
        | PromptResponse
        | ExtResponse,
        Field(description="Method-specific response data."),
    ]


AgentResponse = TypeAliasType(
    "AgentResponse",
    Annotated[
        AgentResponse1 | AgentResponse2,
        Field(description="A JSON-RPC response object."),
    ],
)


class SessionNotification(AcpModel):
    """
    Notification containing a session update from the agent.

    Used to stream real-time progress and results during prompt processing.

    See protocol docs: [Agent Reports Output](https://agentclientprotocol.com/protocol/prompt-turn#3-agent-reports-output)
    """

    session_id: Annotated[
        SessionId,
        Field(
            alias="sessionId",
            description="The ID of the session this update pertains to.",
        ),
    ]
    update: Annotated[SessionUpdate, Field(description="The actual update content.")]
    field_meta: Annotated[
        dict[str, Any] | None,
        Field(
            alias="_meta",
            description="The _meta property is reserved by ACP to allow clients and agents to attach additional\nmetadata to their interactions. Implementations MUST NOT make assumptions about values at\nthese keys.\n\nSee protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)",
        ),
    ] = None


class ClientRequest(AcpModel):
    """
    A JSON-RPC request object.
    """

    id: Annotated[
        RequestId,
        Field(description="The request id used to correlate the matching response."),
    ]
    method: Annotated[str, Field(description="The method name to invoke.")]
    params: Annotated[
        InitializeRequest
        | AuthenticateRequest
        | LogoutRequest
        | NewSessionRequest
        | LoadSessionRequest
        | ListSessionsRequest
        | DeleteSessionRequest
        | ResumeSessionRequest
        | CloseSessionRequest
        | SetSessionModeRequest
        | SetSessionConfigOptionRequest
        | PromptRequest
        | ExtRequest
        | None,
        Field(description="Method-specific request parameters."),
    ] = None


class AgentClientProtocol4(ClientRequest):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


class AgentRequest(AcpModel):
    """
    A JSON-RPC request object.
    """

    id: Annotated[
        RequestId,
        Field(description="The request id used to correlate the matching response."),
    ]
    method: Annotated[str, Field(description="The method name to invoke.")]
    params: Annotated[
        WriteTextFileRequest
        | ReadTextFileRequest
        | RequestPermissionRequest
        | CreateTerminalRequest
        | TerminalOutputRequest
        | ReleaseTerminalRequest
        | WaitForTerminalExitRequest
        | KillTerminalRequest
        | CreateElicitationRequest
        | ExtRequest
        | None,
        Field(description="Method-specific request parameters."),
    ] = None


class AgentNotification(AcpModel):
    """
    A JSON-RPC notification object.
    """

    method: Annotated[str, Field(description="The notification method name.")]
    params: Annotated[
        SessionNotification | CompleteElicitationNotification | ExtNotification | None,
        Field(description="Method-specific notification parameters."),
    ] = None


class AgentClientProtocol1(AgentRequest):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


class AgentClientProtocol3(AgentNotification):
    """
    A message (request, response, or notification) with `"jsonrpc": "2.0"` specified as
    [required by JSON-RPC 2.0 Specification][1].

    [1]: https://www.jsonrpc.org/specification#compatibility
    """

    jsonrpc: Literal["2.0"]


AgentClientProtocol = TypeAliasType(
    "AgentClientProtocol",
    Annotated[
        AgentClientProtocol1
        | AgentClientProtocol2
        | AgentClientProtocol3
        | AgentClientProtocol4
        | AgentClientProtocol5
        | AgentClientProtocol6
        | AgentClientProtocol7,
        Field(title="Agent Client Protocol"),
    ],
)


# ---- Method tables (generated by tools/gen_acp_models.py from the v1 schema's envelopes) ----

# method -> the params or result type (a model class or a union alias); wire.py wraps them in TypeAdapters.
AGENT_METHOD_PARAMS: dict[str, Any] = {
    "authenticate": AuthenticateRequest,
    "initialize": InitializeRequest,
    "logout": LogoutRequest,
    "session/close": CloseSessionRequest,
    "session/delete": DeleteSessionRequest,
    "session/list": ListSessionsRequest,
    "session/load": LoadSessionRequest,
    "session/new": NewSessionRequest,
    "session/prompt": PromptRequest,
    "session/resume": ResumeSessionRequest,
    "session/set_config_option": SetSessionConfigOptionRequest,
    "session/set_mode": SetSessionModeRequest,
}
AGENT_METHOD_RESULTS: dict[str, Any] = {
    "authenticate": AuthenticateResponse,
    "initialize": InitializeResponse,
    "logout": LogoutResponse,
    "session/close": CloseSessionResponse,
    "session/delete": DeleteSessionResponse,
    "session/list": ListSessionsResponse,
    "session/load": LoadSessionResponse,
    "session/new": NewSessionResponse,
    "session/prompt": PromptResponse,
    "session/resume": ResumeSessionResponse,
    "session/set_config_option": SetSessionConfigOptionResponse,
    "session/set_mode": SetSessionModeResponse,
}
AGENT_NOTIFICATION_PARAMS: dict[str, Any] = {
    "session/cancel": CancelNotification,
}
CLIENT_METHOD_PARAMS: dict[str, Any] = {
    "elicitation/create": CreateElicitationRequest,
    "fs/read_text_file": ReadTextFileRequest,
    "fs/write_text_file": WriteTextFileRequest,
    "session/request_permission": RequestPermissionRequest,
    "terminal/create": CreateTerminalRequest,
    "terminal/kill": KillTerminalRequest,
    "terminal/output": TerminalOutputRequest,
    "terminal/release": ReleaseTerminalRequest,
    "terminal/wait_for_exit": WaitForTerminalExitRequest,
}
CLIENT_METHOD_RESULTS: dict[str, Any] = {
    "elicitation/create": CreateElicitationResponse,
    "fs/read_text_file": ReadTextFileResponse,
    "fs/write_text_file": WriteTextFileResponse,
    "session/request_permission": RequestPermissionResponse,
    "terminal/create": CreateTerminalResponse,
    "terminal/kill": KillTerminalResponse,
    "terminal/output": TerminalOutputResponse,
    "terminal/release": ReleaseTerminalResponse,
    "terminal/wait_for_exit": WaitForTerminalExitResponse,
}
CLIENT_NOTIFICATION_PARAMS: dict[str, Any] = {
    "elicitation/complete": CompleteElicitationNotification,
    "session/update": SessionNotification,
}
PROTOCOL_NOTIFICATION_PARAMS: dict[str, Any] = {
    "$/cancel_request": CancelRequestNotification,
}
