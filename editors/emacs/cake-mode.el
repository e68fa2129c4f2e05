;;; cake-mode.el --- Major mode for CAKE IR, with eglot -*- lexical-binding: t; -*-

;; Package-Requires: ((emacs "28.1"))
;; Keywords: languages

;;; Commentary:

;; A major mode for CAKE IR (.cake files): font-lock for keywords, memory
;; spaces, element types, operations written as `family.op', clauses and
;; numbers with byte units; `//' comments; indentation of 2 per open bracket,
;; as `cake fmt' prints it.  It registers `cake lsp' with eglot:
;;
;;   (add-to-list 'load-path "/path/to/cake/editors/emacs")
;;   (require 'cake-mode)
;;   (add-hook 'cake-mode-hook #'eglot-ensure)
;;
;; `cake-check' and `cake-fix' run the server's cake.check and cake.applyFix.

;;; Code:

(require 'rx)

(defgroup cake nil
  "CAKE IR, a schedule language for GPU kernels."
  :group 'languages
  :prefix "cake-")

(defcustom cake-indent-offset 2
  "Indentation per open brace, bracket or parenthesis."
  :type 'integer
  :safe #'integerp)

(defconst cake-keywords
  '("kernel" "const" "let" "var" "ring" "role" "for" "in" "if" "else" "assume" "return")
  "Reserved words of CAKE IR (docs/language.md section 2) but true and false.")

(defconst cake-memory-spaces '("global" "shared" "reg" "tmem" "param"))

(defconst cake-element-types
  '("bf16" "fp16" "fp32" "tf32" "e4m3" "e5m2" "i8" "u8" "i32" "u32" "i64" "bool" "mbarrier"))

;; BEGIN generated operations: from compiler/sema/Ops.def by scripts/gen_grammars.py; do not edit
(defconst cake-op-families
  '("argmin" "atomic" "bar" "cluster" "cp" "cta" "elect" "fence" "ld" "math" "mbarrier" "mma"
    "reduce" "scan" "sched" "self" "st" "tcgen05" "tile" "tma" "topk" "warp" "wgmma"))

(defconst cake-ring-operations '("commit" "consume" "produce" "release")
  "Operations of a ring, called on its name: ab.produce().")
;; END generated operations

(defconst cake-clauses
  '("align" "block" "cluster" "consumer" "count" "grid" "issue" "occupancy" "owner" "per"
    "producer" "regs" "stages" "step" "strides" "swizzle" "target" "trips" "unroll"
    "warpgroups" "warps"))

(defconst cake-font-lock-keywords
  (let ((ident "[A-Za-z_][A-Za-z0-9_]*"))
    `(;; family.op(...): tma.load, wgmma.mma, math.cdiv
      (,(concat "\\_<" (regexp-opt cake-op-families t) "\\.\\(" ident "\\)")
       (1 font-lock-builtin-face) (2 font-lock-function-name-face))
      ;; ring operations: ab.produce()
      (,(concat "\\." (regexp-opt cake-ring-operations t) "\\s-*(") 1 font-lock-function-name-face)
      ;; declarations
      (,(concat "\\_<\\(kernel\\)\\s-+\\(" ident "\\)") (2 font-lock-function-name-face))
      (,(concat "\\_<\\(ring\\|role\\)\\s-+\\(" ident "\\)") (2 font-lock-type-face))
      (,(concat "\\_<\\(const\\|let\\|var\\)\\s-+\\(" ident "\\)") (2 font-lock-variable-name-face))
      (,(concat "\\_<" (regexp-opt cake-keywords t) "\\_>") . font-lock-keyword-face)
      ("\\_<\\(true\\|false\\|inf\\)\\_>" . font-lock-constant-face)
      ;; after family.op above, so that mbarrier.wait stays an operation
      (,(concat "\\_<" (regexp-opt cake-memory-spaces t) "\\_>") . font-lock-keyword-face)
      (,(concat "\\_<" (regexp-opt cake-element-types t) "\\_>") . font-lock-type-face)
      (,(concat "\\_<" (regexp-opt cake-clauses t) "\\s-*(") 1 font-lock-preprocessor-face)
      ;; numbers: 1_024 0.5 1e-6 0x80 0b11, with a unit 128B 64KiB 1MiB
      ("\\_<\\(?:0x[0-9A-Fa-f_]+\\|0b[01_]+\\|[0-9][0-9_]*\\(?:\\.[0-9]+\\)?\\(?:[eE][-+]?[0-9]+\\)?\\)\\(?:B\\|KiB\\|MiB\\)?\\_>"
       . font-lock-constant-face)))
  "Font-lock rules for `cake-mode'.")

(defvar cake-mode-syntax-table
  (let ((st (make-syntax-table)))
    (modify-syntax-entry ?/ ". 12" st)   ; `//' starts a comment
    (modify-syntax-entry ?\n ">" st)     ; and a newline ends it
    (modify-syntax-entry ?_ "_" st)
    (modify-syntax-entry ?\" "\"" st)
    (modify-syntax-entry ?\\ "\\" st)
    (dolist (c '(?. ?+ ?- ?* ?% ?< ?> ?& ?| ?^ ?! ?~ ?= ?: ?, ?\;))
      (modify-syntax-entry c "." st))
    st)
  "Syntax table for `cake-mode'.")

(defun cake-indent-line ()
  "Indent the current line as `cake fmt' does.
That is `cake-indent-offset' past the line that opened the innermost bracket,
and level with that line for a closing bracket."
  (interactive)
  (let* ((indent
          (save-excursion
            (back-to-indentation)
            (let* ((ppss (syntax-ppss))
                   (open (nth 1 ppss))
                   (closing (looking-at-p "[])}]")))
              (cond ((nth 3 ppss) nil)          ; inside a string: leave it
                    ((null open) 0)
                    (t (goto-char open)
                       (+ (current-indentation) (if closing 0 cake-indent-offset)))))))
         (offset (- (current-column) (current-indentation))))
    (when indent
      (indent-line-to indent)
      (when (> offset 0) (forward-char offset)))))

;;;###autoload
(define-derived-mode cake-mode prog-mode "CAKE"
  "Major mode for CAKE IR files."
  :syntax-table cake-mode-syntax-table
  (setq-local comment-start "// ")
  (setq-local comment-end "")
  (setq-local comment-start-skip "//+\\s-*")
  (setq-local indent-tabs-mode nil)
  (setq-local tab-width 8)
  (setq-local indent-line-function #'cake-indent-line)
  (setq-local electric-indent-chars (append "{}()[]" electric-indent-chars))
  (setq-local font-lock-defaults '(cake-font-lock-keywords)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.cake\\'" . cake-mode))

(defvar eglot-server-programs)
;;;###autoload
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs '(cake-mode "cake" "lsp")))
;; CUDA sources with the CUDA checker's diagnostics (issue #20) instead of clangd's (eglot runs one server
;; per buffer):
;;   (add-to-list 'eglot-server-programs
;;                '(cuda-mode "cake" "lsp" :initializationOptions (:cuda (:enable t))))

;;; Server commands (through eglot)

(declare-function eglot--current-server-or-lose "eglot")
(declare-function eglot--TextDocumentIdentifier "eglot")
(declare-function jsonrpc-request "jsonrpc")

(defun cake--execute (command)
  "Run the server's COMMAND on this buffer's document and return its result."
  (require 'eglot)
  (jsonrpc-request (eglot--current-server-or-lose) :workspace/executeCommand
                   `(:command ,command :arguments [,(eglot--TextDocumentIdentifier)])
                   :deferred command)) ; deferred: pending edits reach the server first

(defun cake-check ()
  "Check this buffer with the server's cake.check.
Shows a summary and returns the result (`cake check --format json')."
  (interactive)
  (let* ((result (cake--execute "cake.check"))
         (summary (plist-get result :summary)))
    (message "cake check: %s error(s), %s warning(s)"
             (plist-get summary :errors) (plist-get summary :warnings))
    result))

(defun cake-fix ()
  "Apply every fix-it of this buffer (cake.applyFix; the server sends the edit)."
  (interactive)
  (let ((result (cake--execute "cake.applyFix")))
    (message "cake: applied %s fix(es)" (plist-get result :applied))
    result))

(provide 'cake-mode)
;;; cake-mode.el ends here
