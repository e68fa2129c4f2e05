;;; cake-eglot-test.el --- Emacs + eglot as a real client of `cake lsp' -*- lexical-binding: t; -*-

;;   CAKE=build/cake emacs --batch -Q -l tests/editors/emacs/cake-eglot-test.el \
;;     -f ert-run-tests-batch-and-exit

;;; Commentary:

;; Loads editors/emacs/cake-mode.el and the system's eglot, opens a copy of
;; tests/editors/faulty.cake (tma.lod, op.unknown with a fix-it), starts eglot
;; explicitly (eglot-ensure does nothing in batch mode) and checks: the
;; major mode, font-lock and indentation; the diagnostic's range and code, as
;; published and as flymake shows it; hover (skipped while the server does
;; not advertise hoverProvider); the quickfix through `eglot-code-actions';
;; a clean file afterwards; cake.check's JSON through `cake-check'; and the features
;; of issue #16: signature help, document highlights, folding ranges, code lenses and rename
;; (refused, then applied by `eglot-rename').

;;; Code:

(require 'ert)
(require 'cl-lib)

(defconst cake-test--root
  (expand-file-name "../../.." (file-name-directory (or load-file-name buffer-file-name))))

(dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
  (add-to-list 'load-path dir))
(add-to-list 'load-path (expand-file-name "editors/emacs" cake-test--root))
(require 'eglot)
(require 'flymake)
(require 'cake-mode)

(defconst cake-test--cake (getenv "CAKE"))
(defconst cake-test--timeout 15)

(defvar cake-test--published nil "Raw publishDiagnostics params, newest first.")

(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql textDocument/publishDiagnostics)) &rest params)
  (push params cake-test--published))

(defun cake-test--wait (what pred)
  "Wait until PRED is non-nil (or fail naming WHAT)."
  (let ((deadline (+ (float-time) cake-test--timeout)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (should (or (funcall pred) (ert-fail (format "timed out waiting for %s" what))))))

(defvar cake-test--buffer nil)

(defun cake-test--session ()
  "The buffer visiting a copy of faulty.cake, managed by eglot (started once)."
  (unless (buffer-live-p cake-test--buffer)
    (should cake-test--cake)
    (let* ((dir (file-name-as-directory (make-temp-file "cake-emacs-" t)))
           (file (expand-file-name "faulty.cake" dir)))
      (add-hook 'kill-emacs-hook (lambda () (delete-directory dir t)))
      (copy-file (expand-file-name "tests/editors/faulty.cake" cake-test--root) file)
      (setq cake-test--buffer (find-file-noselect file))
      (with-current-buffer cake-test--buffer
        (should (eq major-mode 'cake-mode))
        ;; cake-mode registered `cake lsp' with eglot; run the binary under test.
        (should (equal (assoc 'cake-mode eglot-server-programs) '(cake-mode "cake" "lsp")))
        (eglot '(cake-mode) (cons 'transient dir) 'eglot-lsp-server (list cake-test--cake "lsp") "cake")
        (cake-test--wait "eglot to manage the buffer" (lambda () eglot--managed-mode))
        (flymake-start) ; installs eglot's report function (no idle timers in batch)
        (cake-test--wait "diagnostics" (lambda () (flymake-diagnostics))))))
  cake-test--buffer)

(defun cake-test--line-col (pos)
  "1-based line and 0-based column of POS."
  (save-excursion (goto-char pos) (list (line-number-at-pos) (current-column))))

(ert-deftest cake-mode-font-lock-and-indent ()
  (with-temp-buffer
    (insert "// c\nkernel k(\nA: global bf16[M],\n) block(32) {\nrole r warps(0) {\nfor i in 0 .. 4 {\n"
            "tma.load(A[i], s.a)\n}\n}\n}\n")
    (cake-mode)
    (font-lock-ensure)
    (cl-flet ((face-at (s) (goto-char (point-min)) (search-forward s) (get-text-property (match-beginning 0) 'face)))
      (should (eq (face-at "// c") 'font-lock-comment-delimiter-face))
      (should (eq (face-at "kernel") 'font-lock-keyword-face))
      (should (eq (face-at "global") 'font-lock-keyword-face))
      (should (eq (face-at "bf16") 'font-lock-type-face))
      (should (eq (face-at "load") 'font-lock-function-name-face))
      (should (eq (face-at "tma") 'font-lock-builtin-face)))
    (indent-region (point-min) (point-max))
    (should (equal (buffer-substring-no-properties (point-min) (point-max))
                   (concat "// c\nkernel k(\n  A: global bf16[M],\n) block(32) {\n  role r warps(0) {\n"
                           "    for i in 0 .. 4 {\n      tma.load(A[i], s.a)\n    }\n  }\n}\n")))
    (goto-char (point-min))
    (comment-region (line-beginning-position 2) (line-end-position 2))
    (should (string-prefix-p "// kernel" (buffer-substring (line-beginning-position 2) (line-end-position 2))))))

(ert-deftest cake-eglot-diagnostics-fix-check ()
  (with-current-buffer (cake-test--session)
    ;; As published: one op.unknown at 24:6-24:13 (0-based).
    (let* ((params (cl-find-if (lambda (p) (> (length (plist-get p :diagnostics)) 0)) cake-test--published))
           (diags (plist-get params :diagnostics))
           (d (aref diags 0)))
      (should (= (length diags) 1))
      (should (equal (plist-get d :code) "op.unknown"))
      (cl-flet ((pos (which) (let ((p (plist-get (plist-get d :range) which)))
                               (list (plist-get p :line) (plist-get p :character)))))
        (should (equal (pos :start) '(24 6)))
        (should (equal (pos :end) '(24 13))))
      ;; eglot 1.9 advertises neither relatedInformation nor codeDescription.
      (should-not (plist-member d :codeDescription)))
    ;; As flymake shows it.
    (let ((diags (flymake-diagnostics)))
      (should (= (length diags) 1))
      (let ((d (car diags)))
        (should (eq (flymake-diagnostic-type d) 'eglot-error))
        (should (equal (cake-test--line-col (flymake-diagnostic-beg d)) '(25 6)))
        (should (equal (cake-test--line-col (flymake-diagnostic-end d)) '(25 13)))
        (should (string-match-p "\\[op\\.unknown\\].*did you mean 'tma\\.load'" (flymake-diagnostic-text d)))))
    ;; cake.check before the fix.
    (let ((r (cake-check)))
      (should (equal (plist-get r :summary) '(:errors 1 :warnings 0)))
      (should (equal (plist-get (aref (plist-get r :diagnostics) 0) :code) "op.unknown")))
    ;; The quickfix, chosen and applied by eglot (one quickfix: no prompt).
    (let* ((d (car (flymake-diagnostics)))
           (beg (flymake-diagnostic-beg d))
           (end (flymake-diagnostic-end d)))
      (should (equal (length (eglot-code-actions beg end "quickfix")) 1))
      (eglot-code-actions beg end "quickfix" t))
    (should (equal (save-excursion (goto-char (point-min)) (forward-line 24)
                                   (buffer-substring-no-properties (point) (line-end-position)))
                   "      tma.load(A[m0, k * BK], s.a)"))
    ;; cake.check is a deferred request: eglot sends the pending didChange first.
    (let ((r (cake-check)))
      (should (equal (plist-get r :summary) '(:errors 0 :warnings 0)))
      (should (equal (plist-get r :diagnostics) [])))
    (cake-test--wait "flymake to clear" (lambda () (null (flymake-diagnostics))))
    (should (equal (plist-get (car cake-test--published) :diagnostics) []))))

(ert-deftest cake-eglot-hover ()
  (with-current-buffer (cake-test--session)
    (unless (eglot--server-capable :hoverProvider)
      (ert-skip "the server does not advertise hoverProvider (hover is not in this build)"))
    (goto-char (point-min))
    (forward-line 26)                   ; `ab' in `ab.commit(s)'
    (forward-char 7)
    (let* ((hover (jsonrpc-request (eglot--current-server-or-lose) :textDocument/hover
                                   (eglot--TextDocumentPositionParams)))
           (contents (plist-get hover :contents)))
      ;; eglot 1.9 asks for plaintext unless markdown-mode is loaded.
      (should (member (plist-get contents :kind)
                      (if (fboundp 'gfm-view-mode) '("markdown" "plaintext") '("plaintext"))))
      (should (string-match-p "\\_<ring\\_>" (plist-get contents :value)))
      (should (string-match-p "stages(4)" (plist-get contents :value))))))

;; The features of issue #16. Named to run after the fix (cake-eglot-diagnostics-fix-check) and the
;; hover, on the clean buffer. eglot 1.9 renames (eglot-rename) and shows signature help and
;; highlights through eldoc; folding ranges and code lenses it does not request, so they are asked
;; for on its connection.
(ert-deftest cake-eglot-lsp-features ()
  (with-current-buffer (cake-test--session)
    (let ((server (eglot--current-server-or-lose)))
      (cl-flet ((at (line col) (goto-char (point-min)) (forward-line line) (forward-char col))
                (req (method &rest params) (jsonrpc-request server method (apply #'append params))))
        (dolist (cap '(:renameProvider :signatureHelpProvider :foldingRangeProvider
                       :documentHighlightProvider :codeLensProvider :workspaceSymbolProvider))
          (should (eglot--server-capable cap)))
        ;; Signature help on `s.a' of tma.load(A[m0, k * BK], s.a).
        (at 24 30)
        (let* ((help (req :textDocument/signatureHelp (eglot--TextDocumentPositionParams)))
               (sig (aref (plist-get help :signatures) 0)))
          (should (string-prefix-p "tma.load(src: global view, dst: shared view" (plist-get sig :label)))
          (should (equal (plist-get help :activeParameter) 1)))
        ;; Document highlight of the ring `ab': the declaration is a write, the four uses reads.
        (at 16 7)
        (let ((marks (req :textDocument/documentHighlight (eglot--TextDocumentPositionParams))))
          (should (= (length marks) 5))
          (should (equal (plist-get (aref marks 0) :kind) 3))
          (should (equal (plist-get (aref marks 1) :kind) 2)))
        ;; Folding ranges: the kernel from its header to the line before its brace.
        (let ((folds (append (req :textDocument/foldingRange (list :textDocument (eglot--TextDocumentIdentifier)))
                             nil)))
          (should (cl-find-if (lambda (f) (and (equal (plist-get f :startLine) 6) (equal (plist-get f :endLine) 42)))
                              folds))
          (should (cl-find-if (lambda (f) (equal (plist-get f :kind) "comment")) folds)))
        ;; Code lenses above the kernel.
        (let ((lenses (req :textDocument/codeLens (list :textDocument (eglot--TextDocumentIdentifier)))))
          (should (= (length lenses) 3))
          (should (equal (plist-get (plist-get (aref lenses 0) :command) :command) "cake.run"))
          (should (equal (plist-get (plist-get (aref lenses 1) :command) :command) "cake.compile")))
        ;; Rename: refused with the reason (the ring would hide the constant BM), then done by eglot.
        (at 16 7)
        (should (string-match-p "hides a declaration"
                                (condition-case err
                                    (progn (eglot-rename "BM") "not refused")
                                  (error (error-message-string err)))))
        (should (equal (buffer-substring-no-properties (line-beginning-position) (line-end-position))
                       "  ring ab stages(4) producer(load) consumer(compute) {"))
        (eglot-rename "pipe")
        (should (equal (buffer-substring-no-properties (line-beginning-position) (line-end-position))
                       "  ring pipe stages(4) producer(load) consumer(compute) {"))
        (should (= (how-many "\\_<pipe\\_>" (point-min) (point-max)) 5))
        (should (= (how-many "\\_<ab\\_>" (point-min) (point-max)) 0))
        ;; The renamed file still checks clean (cake.check sends the pending didChange first).
        (should (equal (plist-get (cake-check) :summary) '(:errors 0 :warnings 0)))))))

(ert-deftest cake-eglot-zz-shutdown ()
  ;; Named to run last (ERT runs tests in name order).
  (with-current-buffer (cake-test--session)
    (let ((server (eglot--current-server-or-lose)))
      (eglot-shutdown server)
      (should-not (jsonrpc-running-p server)))))

;;; cake-eglot-test.el ends here
