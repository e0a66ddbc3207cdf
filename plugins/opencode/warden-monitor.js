// warden's OpenCode plugin: speaks specs/monitor-http.md to warden's monitor
// door. Every tool call is sent to warden before it runs; warden answers
// {"block":false} or {"block":true,"reason":"..."}. Anything else (warden
// unreachable, a timeout, a non-2xx answer, invalid JSON, no "block" field)
// blocks the call: the plugin fails closed.
//
// Configuration (environment):
//   WARDEN_MONITOR_URL         default http://localhost:37123/agent-monitor
//   WARDEN_MONITOR_TIMEOUT_MS  default 150000 (longer than warden's 120 s approval deadline)

const DEFAULT_URL = "http://localhost:37123/agent-monitor"
const SPEC_COMMAND_LIMIT = 100

function monitorURL() {
  return process.env.WARDEN_MONITOR_URL || DEFAULT_URL
}

function timeoutMs() {
  const n = Number(process.env.WARDEN_MONITOR_TIMEOUT_MS)
  return Number.isFinite(n) && n > 0 ? n : 150000
}

// sanitizeArgs follows the spec: bash commands as their first 100
// characters, file paths and search patterns as-is, every other argument as
// its type name only. The whole command travels separately in
// "commandFull" (a warden extension), so no dangerous tail can hide behind a
// harmless head.
function sanitizeArgs(tool, args) {
  const out = {}
  for (const [key, value] of Object.entries(args || {})) {
    if (key === "command" && typeof value === "string") {
      out.command = value.slice(0, SPEC_COMMAND_LIMIT)
    } else if ((key === "filePath" || key === "path" || key === "pattern" || key === "url") && typeof value === "string") {
      out[key] = value
    } else if (value === null) {
      out[key] = "null"
    } else if (Array.isArray(value)) {
      out[key] = "object"
    } else {
      out[key] = typeof value
    }
  }
  return out
}

async function post(body, { timeout = timeoutMs(), url = monitorURL() } = {}) {
  const ctrl = new AbortController()
  const timer = setTimeout(() => ctrl.abort(), timeout)
  try {
    return await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: ctrl.signal,
    })
  } finally {
    clearTimeout(timer)
  }
}

// decide asks warden about one call and returns {block, reason}; every
// failure is a block with the reason saying why.
async function decide(body, opts) {
  let res
  try {
    res = await post(body, opts)
  } catch (err) {
    const why = err && err.name === "AbortError" ? "timed out waiting for warden" : `warden is unreachable (${err && err.message ? err.message : err})`
    return { block: true, reason: `Blocked: ${why} at ${(opts && opts.url) || monitorURL()}` }
  }
  if (res.status < 200 || res.status > 299) {
    let text = ""
    try { text = (await res.text()).slice(0, 300) } catch {}
    return { block: true, reason: `Blocked: warden answered HTTP ${res.status} ${text}`.trim() }
  }
  let answer
  try {
    answer = await res.json()
  } catch {
    return { block: true, reason: "Blocked: warden's answer was not valid JSON" }
  }
  if (!answer || typeof answer.block !== "boolean") {
    return { block: true, reason: "Blocked: warden's answer has no \"block\" field" }
  }
  return { block: answer.block, reason: answer.reason || (answer.block ? "Blocked by warden" : "") }
}

export const WardenMonitor = async ({ project, directory, worktree }) => {
  const projectName = (project && (project.name || (project.worktree && project.worktree.split("/").filter(Boolean).pop()))) || (worktree && worktree.split("/").filter(Boolean).pop()) || "unknown"
  const stats = new Map() // sessionID -> {start, calls, tools:Set}
  const statsFor = (id) => {
    let s = stats.get(id)
    if (!s) {
      s = { start: Date.now(), calls: 0, tools: new Set() }
      stats.set(id, s)
    }
    return s
  }
  const base = (type) => ({ type, timestamp: Date.now(), project: projectName, directory: directory || "", worktree: worktree || "" })
  const notify = async (body) => {
    try {
      const res = await post(body, { timeout: 10000 })
      await res.text()
    } catch {
      // Non-gating events never stop the agent.
    }
  }

  return {
    "tool.execute.before": async (input, output) => {
      const s = statsFor(input.sessionID)
      s.calls++
      s.tools.add(input.tool)
      const args = (output && output.args) || {}
      const body = {
        ...base("tool.pre_execute"),
        tool: input.tool,
        sessionID: input.sessionID,
        callID: input.callID,
        args: sanitizeArgs(input.tool, args),
        sessionStats: { toolCallCount: s.calls, uniqueTools: s.tools.size, duration: Date.now() - s.start },
      }
      if (typeof args.command === "string") body.commandFull = args.command
      const verdict = await decide(body)
      if (verdict.block) {
        throw new Error(verdict.reason)
      }
    },
    "tool.execute.after": async (input, output) => {
      await notify({
        ...base("tool.post_execute"),
        tool: input.tool,
        sessionID: input.sessionID,
        callID: input.callID,
        title: (output && output.title) || "",
        outputLength: output && typeof output.output === "string" ? output.output.length : 0,
        hasMetadata: !!(output && output.metadata && Object.keys(output.metadata).length),
      })
    },
    event: async ({ event }) => {
      const p = (event && event.properties) || {}
      switch (event && event.type) {
        case "session.created": {
          const id = (p.info && p.info.id) || p.sessionID
          if (!id) return
          const s = statsFor(id)
          await notify({ ...base("session.started"), sessionID: id, startTime: s.start })
          return
        }
        case "session.idle": {
          const s = statsFor(p.sessionID)
          await notify({
            ...base("session.idle"),
            sessionID: p.sessionID,
            finalStats: { duration: Date.now() - s.start, totalToolCalls: s.calls, uniqueTools: [...s.tools] },
          })
          return
        }
        case "session.error": {
          const err = p.error
          const name = typeof err === "string" ? err : (err && (err.name || (err.data && err.data.message))) || "UnknownError"
          await notify({ ...base("session.error"), sessionID: p.sessionID || "", error: name })
          return
        }
      }
    },
  }
}

