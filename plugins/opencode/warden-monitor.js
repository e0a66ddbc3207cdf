// warden's OpenCode plugin: speaks specs/monitor-http.md to warden's monitor
// door. Every tool call is sent to warden before it runs; warden answers
// {"block":false} or {"block":true,"reason":"..."}. Anything else (warden
// unreachable, a timeout, a non-2xx answer, invalid JSON, no "block" field,
// an answer without warden's proof) blocks the call: the plugin fails closed.
//
// Proof: every tool call carries a fresh random nonce (X-Warden-Nonce); warden
// signs its answer with its Ed25519 key over the nonce, the status and the
// body (X-Warden-Proof), and the plugin verifies that with warden's public
// key (door.pub in warden's data dir). The plugin holds no secret: a process
// that took over a stopped warden's port cannot answer in warden's name.
//
// When warden allows a call it may also send "args" to run instead (a shell
// command confined by warden's kernel sandbox); the plugin puts them in place.
//
// Configuration (environment):
//   WARDEN_DATA_DIR            warden's data dir (default: the one `warden install
//                              opencode` recorded below, else ~/.local/share/warden)
//   WARDEN_MONITOR_URL         default: the running daemon's monitor door (from
//                              daemon.json in the data dir), else
//                              http://localhost:37123/agent-monitor
//   WARDEN_MONITOR_TIMEOUT_MS  default 150000 (longer than warden's 120 s approval deadline)

import crypto from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"

const DEFAULT_URL = "http://localhost:37123/agent-monitor"
const SPEC_COMMAND_LIMIT = 100
const PROOF_DOMAIN = "warden-proof-v1"
const DOOR = "monitor"

// `warden install opencode` writes the data dir it installed for here.
const INSTALLED_DATA_DIR = ""

function dataDir() {
  if (process.env.WARDEN_DATA_DIR) return process.env.WARDEN_DATA_DIR
  if (INSTALLED_DATA_DIR) return INSTALLED_DATA_DIR
  const xdg = process.env.XDG_DATA_HOME
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".local", "share"), "warden")
}

// monitorURL: the environment, else the running daemon's monitor door as
// daemon.json in the data dir records it, else the spec's default.
function monitorURL() {
  if (process.env.WARDEN_MONITOR_URL) return process.env.WARDEN_MONITOR_URL
  try {
    const rt = JSON.parse(fs.readFileSync(path.join(dataDir(), "daemon.json"), "utf8"))
    const addr = rt && rt.listeners && rt.listeners.monitor
    if (typeof addr === "string" && addr) return `http://${addr}/agent-monitor`
  } catch {}
  return DEFAULT_URL
}

function timeoutMs() {
  const n = Number(process.env.WARDEN_MONITOR_TIMEOUT_MS)
  return Number.isFinite(n) && n > 0 ? n : 150000
}

function hostOf(url) {
  try { return new URL(url).host } catch { return url }
}

// publicKey reads warden's public key; it throws with a reason to show.
function publicKey() {
  const file = path.join(dataDir(), "door.pub")
  let pem
  try {
    pem = fs.readFileSync(file, "utf8")
  } catch (err) {
    throw new Error(`cannot read warden's public key ${file} (${err && err.code ? err.code : err}); start warden once with \`warden serve\`, or set WARDEN_DATA_DIR`)
  }
  try {
    return crypto.createPublicKey(pem)
  } catch (err) {
    throw new Error(`${file} is not a public key (${err && err.message ? err.message : err})`)
  }
}

// verifyProof checks warden's signature of an answer.
function verifyProof(key, nonce, status, body, proof) {
  if (!proof) return "its answer carries no proof of warden's key"
  let sig
  try { sig = Buffer.from(proof, "base64") } catch { sig = Buffer.alloc(0) }
  const msg = Buffer.concat([Buffer.from(`${PROOF_DOMAIN}\n${DOOR}\n${nonce}\n${status}\n`), body])
  let ok = false
  try { ok = sig.length === 64 && crypto.verify(null, msg, key, sig) } catch {}
  return ok ? "" : "its answer's proof does not verify against warden's key"
}

// sanitizeArgs follows the spec: bash commands as their first 100
// characters, file paths (the bash tool's workdir among them: the directory
// a command runs in is part of what it does) and search patterns as-is,
// every other argument as
// its type name only. The whole command travels separately in
// "commandFull" (a warden extension), so no dangerous tail can hide behind a
// harmless head.
function sanitizeArgs(tool, args) {
  const out = {}
  for (const [key, value] of Object.entries(args || {})) {
    if (key === "command" && typeof value === "string") {
      out.command = value.slice(0, SPEC_COMMAND_LIMIT)
    } else if ((key === "filePath" || key === "path" || key === "pattern" || key === "url" || key === "workdir") && typeof value === "string") {
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

async function post(body, { timeout = timeoutMs(), url = monitorURL(), headers = {} } = {}) {
  const ctrl = new AbortController()
  const timer = setTimeout(() => ctrl.abort(), timeout)
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: ctrl.signal,
    })
    // The body is read under the same deadline.
    const raw = Buffer.from(await res.arrayBuffer())
    return { status: res.status, proof: res.headers.get("x-warden-proof") || "", raw }
  } finally {
    clearTimeout(timer)
  }
}

// decide asks warden about one call and returns {block, reason, args}; every
// failure is a block with the reason saying why.
async function decide(body) {
  const url = monitorURL()
  const nonce = crypto.randomBytes(32).toString("base64url")
  let res
  try {
    res = await post(body, { url, headers: { "X-Warden-Nonce": nonce } })
  } catch (err) {
    const why = err && err.name === "AbortError" ? "timed out waiting for warden" : `warden is unreachable (${err && err.message ? err.message : err})`
    return { block: true, reason: `Blocked: ${why} at ${url}` }
  }
  let key
  try {
    key = publicKey()
  } catch (err) {
    return { block: true, reason: `Blocked: cannot check that the listener on ${hostOf(url)} is warden: ${err.message}` }
  }
  const bad = verifyProof(key, nonce, res.status, res.raw, res.proof)
  if (bad) {
    return { block: true, reason: `Blocked: the listener on ${hostOf(url)} is not warden: ${bad} (${path.join(dataDir(), "door.pub")}); warden may have stopped: check with \`warden status\`` }
  }
  if (res.status < 200 || res.status > 299) {
    return { block: true, reason: `Blocked: warden answered HTTP ${res.status} ${res.raw.toString("utf8").slice(0, 300)}`.trim() }
  }
  let answer
  try {
    answer = JSON.parse(res.raw.toString("utf8"))
  } catch {
    return { block: true, reason: "Blocked: warden's answer was not valid JSON" }
  }
  if (!answer || typeof answer.block !== "boolean") {
    return { block: true, reason: "Blocked: warden's answer has no \"block\" field" }
  }
  const args = answer.args && typeof answer.args === "object" && !Array.isArray(answer.args) ? answer.args : null
  return { block: answer.block, reason: answer.reason || (answer.block ? "Blocked by warden" : ""), args }
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
      await post(body, { timeout: 10000 })
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
      // warden's rewrite (the command under its sandbox): only a string for
      // a string, so nothing else of the call changes.
      if (verdict.args && output && output.args) {
        for (const [k, v] of Object.entries(verdict.args)) {
          if (typeof v === "string" && typeof output.args[k] === "string") output.args[k] = v
        }
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

