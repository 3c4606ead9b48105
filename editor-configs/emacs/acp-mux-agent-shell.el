;;; acp-mux-agent-shell.el --- acp-mux agents for agent-shell  -*- lexical-binding: t; -*-

;;; Commentary:
;;
;; Registers one agent-shell (https://github.com/xenodium/agent-shell) agent per acp-mux agent:
;; "acp-mux claude", "acp-mux codex", ... and "acp-mux demo" (the bundled scripted agent).
;;
;; Use: paste this into init.el, or put this file on `load-path' and (require 'acp-mux-agent-shell),
;; after agent-shell is installed.  Then `M-x agent-shell' and pick "acp-mux <agent>", or
;; `M-x acp-mux-agent-shell-start' to be asked for the agent.  acp-mux keeps sessions, so
;; agent-shell first asks "Start shell" with a list of this folder's earlier sessions: pick one
;; to carry on with it, or start a new one (where agent-shell has `agent-shell-session-strategy',
;; setting it to `new' skips the question).  "acp-mux" (the entry for every agent) serves each agent found here.
;;
;; `acp-mux' must be on Emacs's `exec-path'; otherwise replace "acp-mux" below with its absolute
;; path.  Diagnostics: add "--log-file" "/tmp/acp-mux.log" to an agent's command list.

;;; Code:

(require 'cl-lib)
(require 'map)

(declare-function agent-shell-make-agent-config "agent-shell")
(declare-function agent-shell-start "agent-shell")
(declare-function agent-shell--make-acp-client "agent-shell")
(declare-function acp-make-client "acp")
(declare-function shell-maker-welcome-message "shell-maker")
(defvar agent-shell-agent-configs)

(defgroup acp-mux-agent-shell nil
  "acp-mux agents for agent-shell."
  :group 'tools)

(defcustom acp-mux-agent-shell-commands
  '((auto     ""         ("acp-mux" "--agent" "auto"))
    (claude   "Claude"   ("acp-mux" "--agent" "claude"))
    (codex    "Codex"    ("acp-mux" "--agent" "codex"))
    (gemini   "Gemini"   ("acp-mux" "--agent" "gemini"))
    (copilot  "Copilot"  ("acp-mux" "--agent" "copilot"))
    (cursor   "Cursor"   ("acp-mux" "--agent" "cursor"))
    (opencode "OpenCode" ("acp-mux" "--agent" "opencode"))
    (pi       "Pi"       ("acp-mux" "--agent" "pi"))
    (omp      "omp"      ("acp-mux" "--agent" "omp"))
    (openclaw "OpenClaw" ("acp-mux" "--agent" "openclaw"))
    (hermes   "Hermes"   ("acp-mux" "--agent" "hermes"))
    (demo     "Demo"     ("acp-mux" "--agent" "demo")))
  "The acp-mux agents: (AGENT DISPLAY-NAME (COMMAND ARG...)).
COMMAND and ARGs are run as the ACP agent process."
  :type '(repeat (list symbol string (repeat string)))
  :group 'acp-mux-agent-shell)

(defcustom acp-mux-agent-shell-environment nil
  "Extra environment for acp-mux, a list of \"VAR=value\" strings.
They are added to Emacs's own environment, which acp-mux passes on to the agent."
  :type '(repeat string)
  :group 'acp-mux-agent-shell)

(defun acp-mux-agent-shell--make-client (argv buffer)
  "Make an ACP client running ARGV with BUFFER as its context buffer."
  (if (fboundp 'agent-shell--make-acp-client)
      ;; agent-shell's own wrapper (honours its container command prefix).
      (agent-shell--make-acp-client :command (car argv)
                                    :command-params (cdr argv)
                                    :environment-variables acp-mux-agent-shell-environment
                                    :context-buffer buffer)
    (acp-make-client :command (car argv)
                     :command-params (cdr argv)
                     :environment-variables acp-mux-agent-shell-environment
                     :context-buffer buffer)))

(defun acp-mux-agent-shell-make-config (agent display-name argv)
  "Return an agent-shell config for acp-mux AGENT shown as DISPLAY-NAME, running ARGV.
An empty DISPLAY-NAME (the entry for every agent) is shown as plain \"acp-mux\":
agent-shell adds \"Agent\" itself (\"acp-mux Agent @ project\")."""
  (let ((label (if (equal display-name "") "acp-mux" (format "acp-mux %s" display-name))))
    (agent-shell-make-agent-config
     :identifier (intern (format "acp-mux-%s" agent))
     :mode-line-name label
     :buffer-name label
     :shell-prompt (format "acp-mux:%s> " agent)
     :shell-prompt-regexp (regexp-quote (format "acp-mux:%s> " agent))
     :welcome-function (lambda (config) (shell-maker-welcome-message config))
     :client-maker (lambda (buffer) (acp-mux-agent-shell--make-client argv buffer))
     :install-instructions "Put the acp-mux executable on PATH (or use its absolute path in `acp-mux-agent-shell-commands'); `acp-mux doctor' checks the agents.")))

(defun acp-mux-agent-shell-configs ()
  "Return the agent-shell configs of every entry in `acp-mux-agent-shell-commands'."
  (mapcar (lambda (entry)
            (acp-mux-agent-shell-make-config (nth 0 entry) (nth 1 entry) (nth 2 entry)))
          acp-mux-agent-shell-commands))

(defun acp-mux-agent-shell-start (agent)
  "Start an agent-shell running acp-mux AGENT."
  (interactive
   (list (intern (completing-read "acp-mux agent: "
                                  (mapcar (lambda (entry) (symbol-name (car entry)))
                                          acp-mux-agent-shell-commands)
                                  nil t))))
  (let ((entry (assq agent acp-mux-agent-shell-commands)))
    (unless entry
      (user-error "Unknown acp-mux agent: %s" agent))
    (agent-shell-start :config (acp-mux-agent-shell-make-config (nth 0 entry) (nth 1 entry) (nth 2 entry)))))

(defun acp-mux-agent-shell--ours-p (entry)
  "Non-nil if ENTRY of `agent-shell-agent-configs' is a config this file added."
  (and (consp entry)
       (not (functionp entry))
       (consp (car entry))
       (memq (alist-get :identifier entry)
             (mapcar (lambda (e) (intern (format "acp-mux-%s" (car e))))
                     acp-mux-agent-shell-commands))))

(defun acp-mux-agent-shell-register ()
  "Add the acp-mux agents to `agent-shell-agent-configs' (replacing earlier copies)."
  ;; `agent-shell-agent-configs' is a list of configs (or, in newer versions, of config makers).
  ;; If you set it to a function, use `acp-mux-agent-shell-start' or add the configs yourself.
  (unless (functionp agent-shell-agent-configs)
    (setq agent-shell-agent-configs
          (append (cl-remove-if #'acp-mux-agent-shell--ours-p agent-shell-agent-configs)
                  (acp-mux-agent-shell-configs)))))

(with-eval-after-load 'agent-shell
  (acp-mux-agent-shell-register))

(provide 'acp-mux-agent-shell)

;;; acp-mux-agent-shell.el ends here
