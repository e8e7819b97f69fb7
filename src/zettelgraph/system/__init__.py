"""What this machine offers: optional packages installed, processes still alive. A floor
package: it imports nothing else of zettelgraph."""
