#!/usr/bin/env node
// Installs warden's OpenCode plugin (the spec's "node install.js").
//
//   node install.js                 # global: ~/.config/opencode/plugin/
//   node install.js --project DIR   # one project: DIR/.opencode/plugin/
//   node install.js --uninstall [--project DIR]
//
// Idempotent; leaves other plugins alone; prints what it changed.
const fs = require("fs")
const path = require("path")
const os = require("os")

const FILE = "warden-monitor.js"
const args = process.argv.slice(2)
let project = null
let uninstall = false
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--project") project = args[++i]
  else if (args[i] === "--uninstall") uninstall = true
  else if (args[i] === "--global") project = null
  else {
    console.error(`unknown argument ${args[i]}\nusage: node install.js [--project DIR | --global] [--uninstall]`)
    process.exit(2)
  }
}
const configHome = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config")
const dir = project ? path.join(path.resolve(project), ".opencode", "plugin") : path.join(configHome, "opencode", "plugin")
const dest = path.join(dir, FILE)
const src = fs.readFileSync(path.join(__dirname, FILE))

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
  process.exit(0)
}
fs.mkdirSync(dir, { recursive: true })
const tmp = `${dest}.tmp-${process.pid}`
fs.writeFileSync(tmp, src)
fs.renameSync(tmp, dest)
console.log(`installed ${dest}`)
console.log("warden's monitor URL: " + (process.env.WARDEN_MONITOR_URL || "http://localhost:37123/agent-monitor") + " (set WARDEN_MONITOR_URL to change)")
