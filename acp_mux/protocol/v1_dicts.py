"""ACP protocol v1 as TypedDicts, generated from acp_mux/protocol/schema/v1/schema.json (schema schema-v1.21.0, commit 272bf799f35a258c6a4107a0410ed361e83683d3).

The wire-form dicts acp-mux builds and passes on past the edges (keys are the wire names); the pydantic
model in v1.py validates at the edges. Do not edit: run `python tools/gen_acp_models.py`.
"""

from typing import Literal, NotRequired, TypeAlias, TypedDict

# Any JSON value: what the schema leaves untyped (a tool's raw input and output, `_meta`'s values).
JsonValue: TypeAlias = "str | int | float | bool | None | list[JsonValue] | dict[str, JsonValue]"

RequestId: TypeAlias = "int | str | None"
"""JSON RPC Request Id"""

SessionId: TypeAlias = "str"
"""A unique identifier for a conversation session between a client and agent."""

ToolCallId: TypeAlias = "str"
"""Unique identifier for a tool call within a session."""

ToolKind: TypeAlias = (
    "Literal['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']"
)
"""Categories of tools that can be invoked."""

ToolCallStatus: TypeAlias = "Literal['pending', 'in_progress', 'completed', 'failed']"
"""Execution status of a tool call."""

ToolCallContent: TypeAlias = "ToolCallContentContent | ToolCallContentDiff | ToolCallContentTerminal"
"""Content produced by a tool call."""

ContentBlock: TypeAlias = (
    "ContentBlockText | ContentBlockImage | ContentBlockAudio | ContentBlockResourceLink | ContentBlockResource"
)
"""Content blocks represent displayable information in the Agent Client Protocol."""

Role: TypeAlias = "Literal['assistant', 'user']"
"""The sender or recipient of messages and data in a conversation."""

EmbeddedResourceResource: TypeAlias = "TextResourceContents | BlobResourceContents"
"""Resource content that can be embedded in a message."""

TerminalId: TypeAlias = "str"
"""Typed identifier used for terminal values on the wire."""

PermissionOptionId: TypeAlias = "str"
"""Unique identifier for a permission option."""

PermissionOptionKind: TypeAlias = "Literal['allow_once', 'allow_always', 'reject_once', 'reject_always']"
"""The type of permission option being presented to the user."""

CreateElicitationRequest: TypeAlias = "CreateElicitationRequestFormSession | CreateElicitationRequestFormRequest | CreateElicitationRequestUrlSession | CreateElicitationRequestUrlRequest | CreateElicitationRequestOther"
"""Request from the agent to elicit structured user input."""

ElicitationSchemaType: TypeAlias = "Literal['object']"
"""Type discriminator for elicitation schemas."""

ElicitationPropertySchema: TypeAlias = "ElicitationPropertySchemaString | ElicitationPropertySchemaNumber | ElicitationPropertySchemaInteger | ElicitationPropertySchemaBoolean | ElicitationPropertySchemaArray | ElicitationPropertySchemaOther"
"""Property schema for elicitation form fields."""

StringFormat: TypeAlias = "Literal['email', 'uri', 'date', 'date-time']"
"""String format types for string properties in elicitation schemas."""

MultiSelectItems: TypeAlias = "MultiSelectItemsString | MultiSelectItemsOther | TitledMultiSelectItems"
"""Items for a multi-select (array) property schema."""

ElicitationFormMode: TypeAlias = "ElicitationFormModeSession | ElicitationFormModeRequest"
"""Form-based elicitation mode where the client renders a form from the provided schema."""

ElicitationId: TypeAlias = "str"
"""Unique identifier for an elicitation."""

ElicitationUrlMode: TypeAlias = "ElicitationUrlModeSession | ElicitationUrlModeRequest"
"""URL-based elicitation mode where the client directs the user to a URL."""

ExtRequest: TypeAlias = "JsonValue"
"""Allows for sending an arbitrary request that is not part of the ACP spec. Extension methods provide a way to add custom functionality while maintaining protocol compatibility."""

AgentResponse: TypeAlias = "AgentResponseResult | AgentResponseError"
"""A JSON-RPC response object."""

ProtocolVersion: TypeAlias = "int"
"""Protocol version identifier."""

AuthMethod: TypeAlias = "AuthMethodTerminalVariant | AuthMethodAgent"
"""Describes an available authentication method."""

AuthMethodId: TypeAlias = "str"
"""Typed identifier used for auth method values on the wire."""

SessionModeId: TypeAlias = "str"
"""Unique identifier for a Session Mode."""

SessionConfigOption: TypeAlias = "SessionConfigOptionSelect | SessionConfigOptionBoolean"
"""A session configuration option selector and its current state."""

SessionConfigId: TypeAlias = "str"
"""Unique identifier for a session configuration option."""

SessionConfigOptionCategory: TypeAlias = "Literal['mode', 'model', 'model_config', 'thought_level'] | str"
"""Semantic category for a session configuration option."""

SessionConfigValueId: TypeAlias = "str"
"""Unique identifier for a session configuration option value."""

SessionConfigSelectOptions: TypeAlias = "list[SessionConfigSelectOption] | list[SessionConfigSelectGroup]"
"""Possible values for a session configuration option."""

SessionConfigGroupId: TypeAlias = "str"
"""Unique identifier for a session configuration option value group."""

StopReason: TypeAlias = "Literal['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']"
"""Reasons why an agent stops processing a prompt turn."""

ExtResponse: TypeAlias = "JsonValue"
"""Allows for sending an arbitrary response to an [`ExtRequest`] that is not part of the ACP spec. Extension methods provide a way to add custom functionality while maintaining protocol compatibility."""

ErrorCode: TypeAlias = "Literal[-32700, -32600, -32601, -32602, -32603, -32800, -32000, -32002] | int"
"""Predefined error codes for common JSON-RPC and ACP-specific errors."""

SessionUpdate: TypeAlias = "SessionUpdateUserMessageChunk | SessionUpdateAgentMessageChunk | SessionUpdateAgentThoughtChunk | SessionUpdateToolCall | SessionUpdateToolCallUpdate | SessionUpdatePlan | SessionUpdateAvailableCommandsUpdate | SessionUpdateCurrentModeUpdate | SessionUpdateConfigOptionUpdate | SessionUpdateSessionInfoUpdate | SessionUpdateUsageUpdate"
"""Different types of updates that can be sent during session processing."""

MessageId: TypeAlias = "str"
"""Unique identifier for a message within a session."""

PlanEntryPriority: TypeAlias = "Literal['high', 'medium', 'low']"
"""Priority levels for plan entries."""

PlanEntryStatus: TypeAlias = "Literal['pending', 'in_progress', 'completed']"
"""Status of a plan entry in the execution flow."""

AvailableCommandInput: TypeAlias = "UnstructuredCommandInput"
"""The input specification for a command."""

ExtNotification: TypeAlias = "JsonValue"
"""Allows the Agent to send an arbitrary notification that is not part of the ACP spec. Extension notifications provide a way to send one-way messages for custom functionality while maintaining protocol compatibility."""

McpServer: TypeAlias = "McpServerHttpVariant | McpServerSseVariant | McpServerStdio"
"""Configuration for connecting to an MCP (Model Context Protocol) server."""

SetSessionConfigOptionRequest: TypeAlias = "SetSessionConfigOptionRequestBoolean | SetSessionConfigOptionRequestValueId"
"""Request parameters for setting a session configuration option."""

ClientResponse: TypeAlias = "ClientResponseResult | ClientResponseError"
"""A JSON-RPC response object."""

RequestPermissionOutcome: TypeAlias = "RequestPermissionOutcomeCancelled | RequestPermissionOutcomeSelected"
"""The outcome of a permission request."""

CreateElicitationResponse: TypeAlias = "CreateElicitationResponseAccept | CreateElicitationResponseDecline | CreateElicitationResponseCancel | CreateElicitationResponseOther"
"""Response from the client to an elicitation request."""

ElicitationContentValue: TypeAlias = "str | int | float | bool | list[str]"
"""Allowed wire representations for [`ElicitationContentValue`]."""


class AgentRequest(TypedDict):
    """A JSON-RPC request object."""

    id: "RequestId"
    method: "str"
    params: NotRequired[
        "WriteTextFileRequest | ReadTextFileRequest | RequestPermissionRequest | CreateTerminalRequest | TerminalOutputRequest | ReleaseTerminalRequest | WaitForTerminalExitRequest | KillTerminalRequest | CreateElicitationRequest | ExtRequest | None"
    ]


class WriteTextFileRequest(TypedDict):
    """Request to write content to a text file."""

    sessionId: "SessionId"
    path: "str"
    content: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ReadTextFileRequest(TypedDict):
    """Request to read content from a text file."""

    sessionId: "SessionId"
    path: "str"
    line: NotRequired["int | None"]
    limit: NotRequired["int | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class RequestPermissionRequest(TypedDict):
    """Request for user permission to execute a tool call."""

    sessionId: "SessionId"
    toolCall: "ToolCallUpdate"
    options: "list[PermissionOption]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ToolCallUpdate(TypedDict):
    """An update to an existing tool call."""

    toolCallId: "ToolCallId"
    kind: NotRequired["ToolKind | None"]
    status: NotRequired["ToolCallStatus | None"]
    title: NotRequired["str | None"]
    content: NotRequired["list[ToolCallContent] | None"]
    locations: NotRequired["list[ToolCallLocation] | None"]
    rawInput: NotRequired["JsonValue"]
    rawOutput: NotRequired["JsonValue"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class Content(TypedDict):
    """Standard content block (text, images, resources)."""

    content: "ContentBlock"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ToolCallContentContent(Content):
    """Standard content block (text, images, resources)."""

    type: "Literal['content']"


class Diff(TypedDict):
    """A diff representing file modifications."""

    path: "str"
    oldText: NotRequired["str | None"]
    newText: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ToolCallContentDiff(Diff):
    """File modification shown as a diff."""

    type: "Literal['diff']"


class Terminal(TypedDict):
    """Embed a terminal created with `terminal/create` by its id."""

    terminalId: "TerminalId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ToolCallContentTerminal(Terminal):
    """Embed a terminal created with `terminal/create` by its id."""

    type: "Literal['terminal']"


class TextContent(TypedDict):
    """Text provided to or from an LLM."""

    annotations: NotRequired["Annotations | None"]
    text: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ContentBlockText(TextContent):
    """Text content. May be plain text or formatted with Markdown."""

    type: "Literal['text']"


class ImageContent(TypedDict):
    """An image provided to or from an LLM."""

    annotations: NotRequired["Annotations | None"]
    data: "str"
    mimeType: "str"
    uri: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ContentBlockImage(ImageContent):
    """Images for visual context or analysis."""

    type: "Literal['image']"


class AudioContent(TypedDict):
    """Audio provided to or from an LLM."""

    annotations: NotRequired["Annotations | None"]
    data: "str"
    mimeType: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ContentBlockAudio(AudioContent):
    """Audio data for transcription or analysis."""

    type: "Literal['audio']"


class ResourceLink(TypedDict):
    """A resource that the server is capable of reading, included in a prompt or tool call result."""

    annotations: NotRequired["Annotations | None"]
    description: NotRequired["str | None"]
    mimeType: NotRequired["str | None"]
    name: "str"
    size: NotRequired["int | None"]
    title: NotRequired["str | None"]
    uri: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ContentBlockResourceLink(ResourceLink):
    """References to resources that the agent can access."""

    type: "Literal['resource_link']"


class EmbeddedResource(TypedDict):
    """The contents of a resource, embedded into a prompt or tool call result."""

    annotations: NotRequired["Annotations | None"]
    resource: "EmbeddedResourceResource"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ContentBlockResource(EmbeddedResource):
    """Complete resource contents embedded directly in the message."""

    type: "Literal['resource']"


class Annotations(TypedDict):
    """Optional annotations for the client. The client can use annotations to inform how objects are used or displayed"""

    audience: NotRequired["list[Role] | None"]
    lastModified: NotRequired["str | None"]
    priority: NotRequired["float | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class TextResourceContents(TypedDict):
    """Text-based resource contents."""

    mimeType: NotRequired["str | None"]
    text: "str"
    uri: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class BlobResourceContents(TypedDict):
    """Binary resource contents."""

    blob: "str"
    mimeType: NotRequired["str | None"]
    uri: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ToolCallLocation(TypedDict):
    """A file location being accessed or modified by a tool."""

    path: "str"
    line: NotRequired["int | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class PermissionOption(TypedDict):
    """An option presented to the user when requesting permission."""

    optionId: "PermissionOptionId"
    name: "str"
    kind: "PermissionOptionKind"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class CreateTerminalRequest(TypedDict):
    """Request to create a new terminal and execute a command."""

    sessionId: "SessionId"
    command: "str"
    args: NotRequired["list[str]"]
    env: NotRequired["list[EnvVariable]"]
    cwd: NotRequired["str | None"]
    outputByteLimit: NotRequired["int | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class EnvVariable(TypedDict):
    """An environment variable to set when launching an MCP server."""

    name: "str"
    value: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class TerminalOutputRequest(TypedDict):
    """Request to get the current output and status of a terminal."""

    sessionId: "SessionId"
    terminalId: "TerminalId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ReleaseTerminalRequest(TypedDict):
    """Request to release a terminal and free its resources."""

    sessionId: "SessionId"
    terminalId: "TerminalId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class WaitForTerminalExitRequest(TypedDict):
    """Request to wait for a terminal command to exit."""

    sessionId: "SessionId"
    terminalId: "TerminalId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class KillTerminalRequest(TypedDict):
    """Request to kill a terminal without releasing it."""

    sessionId: "SessionId"
    terminalId: "TerminalId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class CreateElicitationRequestFields(TypedDict):
    """Request from the agent to elicit structured user input."""

    message: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class CreateElicitationRequestOther(CreateElicitationRequestFields):
    """Custom or future elicitation mode."""

    mode: "str"


class ElicitationSessionScope(TypedDict):
    """Session-scoped elicitation, optionally tied to a specific tool call."""

    sessionId: "SessionId"
    toolCallId: NotRequired["ToolCallId | None"]


class ElicitationRequestScope(TypedDict):
    """Request-scoped elicitation, tied to a specific JSON-RPC request outside of a session (e.g., during auth/configuration phases before any session is started)."""

    requestId: "RequestId"


class ElicitationSchema(TypedDict):
    """Type-safe elicitation schema for requesting structured user input."""

    type: NotRequired["ElicitationSchemaType"]
    title: NotRequired["str | None"]
    properties: NotRequired["dict[str, ElicitationPropertySchema]"]
    required: NotRequired["list[str] | None"]
    description: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class StringPropertySchema(TypedDict):
    """Schema for string properties in an elicitation form."""

    title: NotRequired["str | None"]
    description: NotRequired["str | None"]
    minLength: NotRequired["int | None"]
    maxLength: NotRequired["int | None"]
    pattern: NotRequired["str | None"]
    format: NotRequired["StringFormat | None"]
    default: NotRequired["str | None"]
    enum: NotRequired["list[str] | None"]
    oneOf: NotRequired["list[EnumOption] | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationPropertySchemaString(StringPropertySchema):
    """String property (or single-select enum when `enum`/`oneOf` is set)."""

    type: "Literal['string']"


class NumberPropertySchema(TypedDict):
    """Schema for number (floating-point) properties in an elicitation form."""

    title: NotRequired["str | None"]
    description: NotRequired["str | None"]
    minimum: NotRequired["float | None"]
    maximum: NotRequired["float | None"]
    default: NotRequired["float | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationPropertySchemaNumber(NumberPropertySchema):
    """Number (floating-point) property."""

    type: "Literal['number']"


class IntegerPropertySchema(TypedDict):
    """Schema for integer properties in an elicitation form."""

    title: NotRequired["str | None"]
    description: NotRequired["str | None"]
    minimum: NotRequired["int | None"]
    maximum: NotRequired["int | None"]
    default: NotRequired["int | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationPropertySchemaInteger(IntegerPropertySchema):
    """Integer property."""

    type: "Literal['integer']"


class BooleanPropertySchema(TypedDict):
    """Schema for boolean properties in an elicitation form."""

    title: NotRequired["str | None"]
    description: NotRequired["str | None"]
    default: NotRequired["bool | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationPropertySchemaBoolean(BooleanPropertySchema):
    """Boolean property."""

    type: "Literal['boolean']"


class MultiSelectPropertySchema(TypedDict):
    """Schema for multi-select (array) properties in an elicitation form."""

    title: NotRequired["str | None"]
    description: NotRequired["str | None"]
    minItems: NotRequired["int | None"]
    maxItems: NotRequired["int | None"]
    items: "MultiSelectItems"
    default: NotRequired["list[str] | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationPropertySchemaArray(MultiSelectPropertySchema):
    """Multi-select array property."""

    type: "Literal['array']"


class ElicitationPropertySchemaOther(TypedDict):
    """Custom or future elicitation property schema."""

    type: "str"


class EnumOption(TypedDict):
    """A titled enum option with a const value, human-readable title, and optional description."""

    const: "str"
    title: "str"
    description: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class StringMultiSelectItems(TypedDict):
    """String item schema for multi-select enum properties."""

    enum: "list[str]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class MultiSelectItemsString(StringMultiSelectItems):
    """Multi-select string items with plain string values."""

    type: "Literal['string']"


class MultiSelectItemsOther(TypedDict):
    """Custom or future typed multi-select items."""

    type: "str"


class TitledMultiSelectItems(TypedDict):
    """Items definition for titled multi-select enum properties."""

    anyOf: "list[EnumOption]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationFormModeFields(TypedDict):
    """Form-based elicitation mode where the client renders a form from the provided schema."""

    requestedSchema: "ElicitationSchema"


class ElicitationFormModeSession(ElicitationFormModeFields, ElicitationSessionScope):
    """Tied to a session, optionally to a specific tool call within that session."""


class ElicitationFormModeRequest(ElicitationFormModeFields, ElicitationRequestScope):
    """Tied to a specific JSON-RPC request outside of a session (e.g., during auth/configuration phases before any session is started)."""


class ElicitationUrlModeFields(TypedDict):
    """URL-based elicitation mode where the client directs the user to a URL."""

    elicitationId: "ElicitationId"
    url: "str"


class ElicitationUrlModeSession(ElicitationUrlModeFields, ElicitationSessionScope):
    """Tied to a session, optionally to a specific tool call within that session."""


class ElicitationUrlModeRequest(ElicitationUrlModeFields, ElicitationRequestScope):
    """Tied to a specific JSON-RPC request outside of a session (e.g., during auth/configuration phases before any session is started)."""


class AgentResponseResult(TypedDict):
    """A successful JSON-RPC response."""

    id: "RequestId"
    result: "InitializeResponse | AuthenticateResponse | LogoutResponse | NewSessionResponse | LoadSessionResponse | ListSessionsResponse | DeleteSessionResponse | ResumeSessionResponse | CloseSessionResponse | SetSessionModeResponse | SetSessionConfigOptionResponse | PromptResponse | ExtResponse"


class AgentResponseError(TypedDict):
    """A failed JSON-RPC response."""

    id: "RequestId"
    error: "Error"


class InitializeResponse(TypedDict):
    """Response to the `initialize` method."""

    protocolVersion: "ProtocolVersion"
    agentCapabilities: NotRequired["AgentCapabilities"]
    authMethods: NotRequired["list[AuthMethod]"]
    agentInfo: NotRequired["Implementation | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class AgentCapabilities(TypedDict):
    """Capabilities supported by the agent."""

    loadSession: NotRequired["bool"]
    promptCapabilities: NotRequired["PromptCapabilities"]
    mcpCapabilities: NotRequired["McpCapabilities"]
    sessionCapabilities: NotRequired["SessionCapabilities"]
    auth: NotRequired["AgentAuthCapabilities"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class PromptCapabilities(TypedDict):
    """Prompt capabilities supported by the agent in `session/prompt` requests."""

    image: NotRequired["bool"]
    audio: NotRequired["bool"]
    embeddedContext: NotRequired["bool"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class McpCapabilities(TypedDict):
    """MCP capabilities supported by the agent"""

    http: NotRequired["bool"]
    sse: NotRequired["bool"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionCapabilities(TypedDict):
    """Session capabilities supported by the agent."""

    list: NotRequired["SessionListCapabilities | None"]
    delete: NotRequired["SessionDeleteCapabilities | None"]
    additionalDirectories: NotRequired["SessionAdditionalDirectoriesCapabilities | None"]
    resume: NotRequired["SessionResumeCapabilities | None"]
    close: NotRequired["SessionCloseCapabilities | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionListCapabilities(TypedDict):
    """Capabilities for the `session/list` method."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionDeleteCapabilities(TypedDict):
    """Capabilities for the `session/delete` method."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionAdditionalDirectoriesCapabilities(TypedDict):
    """Capabilities for additional session directories support."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionResumeCapabilities(TypedDict):
    """Capabilities for the `session/resume` method."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionCloseCapabilities(TypedDict):
    """Capabilities for the `session/close` method."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class AgentAuthCapabilities(TypedDict):
    """Authentication-related capabilities supported by the agent."""

    logout: NotRequired["LogoutCapabilities | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class LogoutCapabilities(TypedDict):
    """Logout capabilities supported by the agent."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class AuthMethodTerminal(TypedDict):
    """Terminal-based authentication method."""

    id: "AuthMethodId"
    name: "str"
    description: NotRequired["str | None"]
    args: NotRequired["list[str]"]
    env: NotRequired["dict[str, str]"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class AuthMethodTerminalVariant(AuthMethodTerminal):
    """Client runs the configured agent program as a separate interactive process, without passing this method to `authenticate`."""

    type: "Literal['terminal']"


class AuthMethodAgent(TypedDict):
    """Agent handles authentication itself through `authenticate`."""

    id: "AuthMethodId"
    name: "str"
    description: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class Implementation(TypedDict):
    """Metadata about the implementation of the client or agent. Describes the name and version of an ACP implementation, with an optional title for UI representation."""

    name: "str"
    title: NotRequired["str | None"]
    version: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class AuthenticateResponse(TypedDict):
    """Response to the `authenticate` method."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class LogoutResponse(TypedDict):
    """Response to the `logout` method."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class NewSessionResponse(TypedDict):
    """Response from creating a new session."""

    sessionId: "SessionId"
    modes: NotRequired["SessionModeState | None"]
    configOptions: NotRequired["list[SessionConfigOption] | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionModeState(TypedDict):
    """The set of modes and the one currently active."""

    currentModeId: "SessionModeId"
    availableModes: "list[SessionMode]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionMode(TypedDict):
    """A mode the agent can operate in."""

    id: "SessionModeId"
    name: "str"
    description: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionConfigOptionFields(TypedDict):
    """A session configuration option selector and its current state."""

    id: "SessionConfigId"
    name: "str"
    description: NotRequired["str | None"]
    category: NotRequired["SessionConfigOptionCategory | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionConfigSelect(TypedDict):
    """A single-value selector (dropdown) session configuration option payload."""

    currentValue: "SessionConfigValueId"
    options: "SessionConfigSelectOptions"


class SessionConfigOptionSelect(SessionConfigOptionFields, SessionConfigSelect):
    """Single-value selector (dropdown)."""

    type: "Literal['select']"


class SessionConfigBoolean(TypedDict):
    """A boolean on/off toggle session configuration option payload."""

    currentValue: "bool"


class SessionConfigOptionBoolean(SessionConfigOptionFields, SessionConfigBoolean):
    """Boolean on/off toggle."""

    type: "Literal['boolean']"


class SessionConfigSelectOption(TypedDict):
    """A possible value for a session configuration option."""

    value: "SessionConfigValueId"
    name: "str"
    description: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionConfigSelectGroup(TypedDict):
    """A group of possible values for a session configuration option."""

    group: "SessionConfigGroupId"
    name: "str"
    options: "list[SessionConfigSelectOption]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class LoadSessionResponse(TypedDict):
    """Response from loading an existing session."""

    modes: NotRequired["SessionModeState | None"]
    configOptions: NotRequired["list[SessionConfigOption] | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ListSessionsResponse(TypedDict):
    """Response from listing sessions."""

    sessions: "list[SessionInfo]"
    nextCursor: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionInfo(TypedDict):
    """Information about a session returned by session/list"""

    sessionId: "SessionId"
    cwd: "str"
    additionalDirectories: NotRequired["list[str]"]
    title: NotRequired["str | None"]
    updatedAt: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class DeleteSessionResponse(TypedDict):
    """Response from deleting a session."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class ResumeSessionResponse(TypedDict):
    """Response from resuming an existing session."""

    modes: NotRequired["SessionModeState | None"]
    configOptions: NotRequired["list[SessionConfigOption] | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class CloseSessionResponse(TypedDict):
    """Response from closing a session."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class SetSessionModeResponse(TypedDict):
    """Response to `session/set_mode` method."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class SetSessionConfigOptionResponse(TypedDict):
    """Response to `session/set_config_option` method."""

    configOptions: "list[SessionConfigOption]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class PromptResponse(TypedDict):
    """Response from processing a user prompt."""

    stopReason: "StopReason"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class Error(TypedDict):
    """JSON-RPC error object."""

    code: "ErrorCode"
    message: "str"
    data: NotRequired["JsonValue"]


class AgentNotification(TypedDict):
    """A JSON-RPC notification object."""

    method: "str"
    params: NotRequired["SessionNotification | CompleteElicitationNotification | ExtNotification | None"]


class SessionNotification(TypedDict):
    """Notification containing a session update from the agent."""

    sessionId: "SessionId"
    update: "SessionUpdate"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ContentChunk(TypedDict):
    """A streamed item of content"""

    content: "ContentBlock"
    messageId: NotRequired["MessageId | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionUpdateUserMessageChunk(ContentChunk):
    """A chunk of the user's message being streamed."""

    sessionUpdate: "Literal['user_message_chunk']"


class SessionUpdateAgentMessageChunk(ContentChunk):
    """A chunk of the agent's response being streamed."""

    sessionUpdate: "Literal['agent_message_chunk']"


class SessionUpdateAgentThoughtChunk(ContentChunk):
    """A chunk of the agent's internal reasoning being streamed."""

    sessionUpdate: "Literal['agent_thought_chunk']"


class ToolCall(TypedDict):
    """Represents a tool call that the language model has requested."""

    toolCallId: "ToolCallId"
    title: "str"
    kind: NotRequired["ToolKind"]
    status: NotRequired["ToolCallStatus"]
    content: NotRequired["list[ToolCallContent]"]
    locations: NotRequired["list[ToolCallLocation]"]
    rawInput: NotRequired["JsonValue"]
    rawOutput: NotRequired["JsonValue"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionUpdateToolCall(ToolCall):
    """Notification that a new tool call has been initiated."""

    sessionUpdate: "Literal['tool_call']"


class SessionUpdateToolCallUpdate(ToolCallUpdate):
    """Update on the status or results of a tool call."""

    sessionUpdate: "Literal['tool_call_update']"


class Plan(TypedDict):
    """An execution plan for accomplishing complex tasks."""

    entries: "list[PlanEntry]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionUpdatePlan(Plan):
    """The agent's execution plan for complex tasks. See protocol docs: [Agent Plan](https://agentclientprotocol.com/protocol/agent-plan)"""

    sessionUpdate: "Literal['plan']"


class AvailableCommandsUpdate(TypedDict):
    """Available commands are ready or have changed"""

    availableCommands: "list[AvailableCommand]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionUpdateAvailableCommandsUpdate(AvailableCommandsUpdate):
    """Available commands are ready or have changed"""

    sessionUpdate: "Literal['available_commands_update']"


class CurrentModeUpdate(TypedDict):
    """The current mode of the session has changed"""

    currentModeId: "SessionModeId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionUpdateCurrentModeUpdate(CurrentModeUpdate):
    """The current mode of the session has changed"""

    sessionUpdate: "Literal['current_mode_update']"


class ConfigOptionUpdate(TypedDict):
    """Session configuration options have been updated."""

    configOptions: "list[SessionConfigOption]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionUpdateConfigOptionUpdate(ConfigOptionUpdate):
    """Session configuration options have been updated."""

    sessionUpdate: "Literal['config_option_update']"


class SessionInfoUpdate(TypedDict):
    """Update to session metadata. All fields are optional to support partial updates."""

    title: NotRequired["str | None"]
    updatedAt: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionUpdateSessionInfoUpdate(SessionInfoUpdate):
    """Session metadata has been updated (title, timestamps, custom metadata)"""

    sessionUpdate: "Literal['session_info_update']"


class UsageUpdate(TypedDict):
    """Context window and cost update for a session."""

    used: "int"
    size: "int"
    cost: NotRequired["Cost | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionUpdateUsageUpdate(UsageUpdate):
    """Context window and cost update for the session."""

    sessionUpdate: "Literal['usage_update']"


class PlanEntry(TypedDict):
    """A single entry in the execution plan."""

    content: "str"
    priority: "PlanEntryPriority"
    status: "PlanEntryStatus"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class AvailableCommand(TypedDict):
    """Information about a command."""

    name: "str"
    description: "str"
    input: NotRequired["AvailableCommandInput | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class UnstructuredCommandInput(TypedDict):
    """All text that was typed after the command name is provided as input."""

    hint: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class Cost(TypedDict):
    """Cost information for a session."""

    amount: "float"
    currency: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class CompleteElicitationNotification(TypedDict):
    """Notification sent by the agent when a URL-based elicitation is complete."""

    elicitationId: "ElicitationId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ClientRequest(TypedDict):
    """A JSON-RPC request object."""

    id: "RequestId"
    method: "str"
    params: NotRequired[
        "InitializeRequest | AuthenticateRequest | LogoutRequest | NewSessionRequest | LoadSessionRequest | ListSessionsRequest | DeleteSessionRequest | ResumeSessionRequest | CloseSessionRequest | SetSessionModeRequest | SetSessionConfigOptionRequest | PromptRequest | ExtRequest | None"
    ]


class InitializeRequest(TypedDict):
    """Request parameters for the initialize method."""

    protocolVersion: "ProtocolVersion"
    clientCapabilities: NotRequired["ClientCapabilities"]
    clientInfo: NotRequired["Implementation | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ClientCapabilities(TypedDict):
    """Capabilities supported by the client."""

    fs: NotRequired["FileSystemCapabilities"]
    terminal: NotRequired["bool"]
    session: NotRequired["ClientSessionCapabilities | None"]
    auth: NotRequired["AuthCapabilities"]
    elicitation: NotRequired["ElicitationCapabilities | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class FileSystemCapabilities(TypedDict):
    """File system capabilities that a client may support."""

    readTextFile: NotRequired["bool"]
    writeTextFile: NotRequired["bool"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ClientSessionCapabilities(TypedDict):
    """Session-related capabilities supported by the client."""

    configOptions: NotRequired["SessionConfigOptionsCapabilities | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SessionConfigOptionsCapabilities(TypedDict):
    """Session configuration option capabilities supported by the client."""

    boolean: NotRequired["BooleanConfigOptionCapabilities | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class BooleanConfigOptionCapabilities(TypedDict):
    """Capabilities for boolean session configuration options."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class AuthCapabilities(TypedDict):
    """Authentication capabilities supported by the client."""

    terminal: NotRequired["bool"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationCapabilities(TypedDict):
    """Elicitation capabilities supported by the client."""

    form: NotRequired["ElicitationFormCapabilities | None"]
    url: NotRequired["ElicitationUrlCapabilities | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationFormCapabilities(TypedDict):
    """Form-based elicitation capabilities."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationUrlCapabilities(TypedDict):
    """URL-based elicitation capabilities."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class AuthenticateRequest(TypedDict):
    """Request parameters for the authenticate method."""

    methodId: "AuthMethodId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class LogoutRequest(TypedDict):
    """Request parameters for the logout method."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class NewSessionRequest(TypedDict):
    """Request parameters for creating a new session."""

    cwd: "str"
    additionalDirectories: NotRequired["list[str]"]
    mcpServers: "list[McpServer]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class McpServerHttp(TypedDict):
    """HTTP transport configuration for MCP."""

    name: "str"
    url: "str"
    headers: "list[HttpHeader]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class McpServerHttpVariant(McpServerHttp):
    """HTTP transport configuration"""

    type: "Literal['http']"


class McpServerSse(TypedDict):
    """SSE transport configuration for MCP."""

    name: "str"
    url: "str"
    headers: "list[HttpHeader]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class McpServerSseVariant(McpServerSse):
    """SSE transport configuration"""

    type: "Literal['sse']"


class HttpHeader(TypedDict):
    """An HTTP header to set when making requests to the MCP server."""

    name: "str"
    value: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class McpServerStdio(TypedDict):
    """Stdio transport configuration for MCP."""

    name: "str"
    command: "str"
    args: "list[str]"
    env: "list[EnvVariable]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class LoadSessionRequest(TypedDict):
    """Request parameters for loading an existing session."""

    mcpServers: "list[McpServer]"
    cwd: "str"
    additionalDirectories: NotRequired["list[str]"]
    sessionId: "SessionId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ListSessionsRequest(TypedDict):
    """Request parameters for listing existing sessions."""

    cwd: NotRequired["str | None"]
    cursor: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class DeleteSessionRequest(TypedDict):
    """Request parameters for deleting an existing session from `session/list`."""

    sessionId: "SessionId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ResumeSessionRequest(TypedDict):
    """Request parameters for resuming an existing session."""

    sessionId: "SessionId"
    cwd: "str"
    additionalDirectories: NotRequired["list[str]"]
    mcpServers: NotRequired["list[McpServer]"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class CloseSessionRequest(TypedDict):
    """Request parameters for closing an active session."""

    sessionId: "SessionId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SetSessionModeRequest(TypedDict):
    """Request parameters for setting a session mode."""

    sessionId: "SessionId"
    modeId: "SessionModeId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SetSessionConfigOptionRequestFields(TypedDict):
    """Request parameters for setting a session configuration option."""

    sessionId: "SessionId"
    configId: "SessionConfigId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class SetSessionConfigOptionRequestBoolean(SetSessionConfigOptionRequestFields):
    """A boolean value (`type: \"boolean\"`)."""

    value: "bool"
    type: "Literal['boolean']"


class SetSessionConfigOptionRequestValueId(SetSessionConfigOptionRequestFields):
    """A [`SessionConfigValueId`] string value."""

    value: "SessionConfigValueId"


class PromptRequest(TypedDict):
    """Request parameters for sending a user prompt to the agent."""

    sessionId: "SessionId"
    prompt: "list[ContentBlock]"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ClientResponseResult(TypedDict):
    """A successful JSON-RPC response."""

    id: "RequestId"
    result: "WriteTextFileResponse | ReadTextFileResponse | RequestPermissionResponse | CreateTerminalResponse | TerminalOutputResponse | ReleaseTerminalResponse | WaitForTerminalExitResponse | KillTerminalResponse | CreateElicitationResponse | ExtResponse"


class ClientResponseError(TypedDict):
    """A failed JSON-RPC response."""

    id: "RequestId"
    error: "Error"


class WriteTextFileResponse(TypedDict):
    """Response to `fs/write_text_file`"""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class ReadTextFileResponse(TypedDict):
    """Response containing the contents of a text file."""

    content: "str"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class RequestPermissionResponse(TypedDict):
    """Response to a permission request."""

    outcome: "RequestPermissionOutcome"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class RequestPermissionOutcomeCancelled(TypedDict):
    """The prompt turn was cancelled before the user responded."""

    outcome: "Literal['cancelled']"


class SelectedPermissionOutcome(TypedDict):
    """The user selected one of the provided options."""

    optionId: "PermissionOptionId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class RequestPermissionOutcomeSelected(SelectedPermissionOutcome):
    """The user selected one of the provided options."""

    outcome: "Literal['selected']"


class CreateTerminalResponse(TypedDict):
    """Response containing the ID of the created terminal."""

    terminalId: "TerminalId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class TerminalOutputResponse(TypedDict):
    """Response containing the terminal output and exit status."""

    output: "str"
    truncated: "bool"
    exitStatus: NotRequired["TerminalExitStatus | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class TerminalExitStatus(TypedDict):
    """Exit status of a terminal command."""

    exitCode: NotRequired["int | None"]
    signal: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class ReleaseTerminalResponse(TypedDict):
    """Response to terminal/release method"""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class WaitForTerminalExitResponse(TypedDict):
    """Response containing the exit status of a terminal command."""

    exitCode: NotRequired["int | None"]
    signal: NotRequired["str | None"]
    _meta: NotRequired["dict[str, JsonValue] | None"]


class KillTerminalResponse(TypedDict):
    """Response to `terminal/kill` method"""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class CreateElicitationResponseFields(TypedDict):
    """Response from the client to an elicitation request."""

    _meta: NotRequired["dict[str, JsonValue] | None"]


class ElicitationAcceptAction(TypedDict):
    """The user accepted the elicitation and provided content."""

    content: NotRequired["dict[str, ElicitationContentValue] | None"]


class CreateElicitationResponseAccept(CreateElicitationResponseFields, ElicitationAcceptAction):
    """The user accepted and provided content."""

    action: "Literal['accept']"


class CreateElicitationResponseDecline(CreateElicitationResponseFields):
    """The user declined the elicitation."""

    action: "Literal['decline']"


class CreateElicitationResponseCancel(CreateElicitationResponseFields):
    """The elicitation was cancelled."""

    action: "Literal['cancel']"


class CreateElicitationResponseOther(CreateElicitationResponseFields):
    """Custom or future elicitation action."""

    action: "str"


class ClientNotification(TypedDict):
    """A JSON-RPC notification object."""

    method: "str"
    params: NotRequired["CancelNotification | ExtNotification | None"]


class CancelNotification(TypedDict):
    """Notification to cancel ongoing operations for a session."""

    sessionId: "SessionId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class CancelRequestNotification(TypedDict):
    """Notification to cancel an ongoing request."""

    requestId: "RequestId"
    _meta: NotRequired["dict[str, JsonValue] | None"]


class CreateElicitationRequestFormSession(CreateElicitationRequestFields, ElicitationFormModeSession):
    """Form-based elicitation where the client renders a form from the provided schema."""

    mode: "Literal['form']"


class CreateElicitationRequestFormRequest(CreateElicitationRequestFields, ElicitationFormModeRequest):
    """Form-based elicitation where the client renders a form from the provided schema."""

    mode: "Literal['form']"


class CreateElicitationRequestUrlSession(CreateElicitationRequestFields, ElicitationUrlModeSession):
    """URL-based elicitation where the client directs the user to a URL."""

    mode: "Literal['url']"


class CreateElicitationRequestUrlRequest(CreateElicitationRequestFields, ElicitationUrlModeRequest):
    """URL-based elicitation where the client directs the user to a URL."""

    mode: "Literal['url']"
