#!/usr/bin/env node
// Installs warden's OpenCode plugin (the spec's "node install.js").
//
//   node install.js                 # global: ~/.config/opencode/plugin/
//   node install.js --project DIR   # one project: DIR/.opencode/plugin/
//   node install.js --data-dir DIR  # warden's data dir (default $WARDEN_DATA_DIR,
//                                   # else the plugin's ~/.local/share/warden)
//   node install.js --uninstall [--project DIR]
//
// The plugin finds warden through its data dir: the public key it checks
// every answer with (door.pub) and the running daemon's address (daemon.json).
// Idempotent; leaves other plugins alone; prints what it changed.
const fs = require("fs")
const path = require("path")
const os = require("os")

const FILE = "warden-monitor.js"
const DATA_DIR_LINE = 'const INSTALLED_DATA_DIR = ""'
const args = process.argv.slice(2)
let project = null
let uninstall = false
let dataDir = process.env.WARDEN_DATA_DIR || ""
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--project") project = args[++i]
  else if (args[i] === "--uninstall") uninstall = true
  else if (args[i] === "--global") project = null
  else if (args[i] === "--data-dir") dataDir = args[++i] || ""
  else {
    console.error(`unknown argument ${args[i]}\nusage: node install.js [--project DIR | --global] [--data-dir DIR] [--uninstall]`)
    process.exit(2)
  }
}
const configHome = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config")
const dir = project ? path.join(path.resolve(project), ".opencode", "plugin") : path.join(configHome, "opencode", "plugin")
const dest = path.join(dir, FILE)
let src = fs.readFileSync(path.join(__dirname, FILE), "utf8")
if (dataDir) {
  dataDir = path.resolve(dataDir)
  // JSON.stringify gives a JavaScript string literal (as warden's Go installer writes it).
  src = src.replace(DATA_DIR_LINE, `const INSTALLED_DATA_DIR = ${JSON.stringify(dataDir)}`)
}
src = Buffer.from(src)

if (uninstall) {
  if (fs.existsSync(dest)) {
    fs.unlinkSync(dest)
    console.log(`removed ${dest}`)
  } else {
    console.log(`nothing to remove: ${dest} does not exist`)
  }
  process.exit(0)
}
if (fs.existsSync(dest) && Buffer.compare(fs.readFileSync(dest), src) === 0) {
  console.log(`already installed: ${dest}`)
} else {
  fs.mkdirSync(dir, { recursive: true })
  const tmp = `${dest}.tmp-${process.pid}`
  fs.writeFileSync(tmp, src)
  fs.renameSync(tmp, dest)
  console.log(`installed ${dest}`)
}
const data = dataDir || path.join(process.env.XDG_DATA_HOME || path.join(os.homedir(), ".local", "share"), "warden")
let url = process.env.WARDEN_MONITOR_URL || ""
if (!url) {
  try {
    const rt = JSON.parse(fs.readFileSync(path.join(data, "daemon.json"), "utf8"))
    if (rt && rt.listeners && rt.listeners.monitor) url = `http://${rt.listeners.monitor}/agent-monitor`
  } catch {}
}
console.log(`The plugin finds warden through ${data} (door.pub and daemon.json).`)
console.log(url ? `warden's monitor door: ${url}` : "warden is not running: start it with `warden serve`; until then the plugin blocks every tool call.")
