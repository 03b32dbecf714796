// The Bigtable emulator for machines without Google's: Debian's
// golang-google-cloud-dev carries its server, cloud.google.com/go/bigtable/bttest
// (an older version than Google's cbtemulator), and this is the main around
// it, with cbtemulator's flags.  make deps builds it (test/scripts/deps.sh).
package main

import (
	"flag"
	"fmt"
	"log"

	"cloud.google.com/go/bigtable/bttest"
	"google.golang.org/grpc"
)

func main() {
	host := flag.String("host", "localhost", "the address to bind to")
	port := flag.Int("port", 9000, "the port to listen on")
	flag.Parse()
	// Bigtable takes a row of 256 MB; gRPC's default is 4 MB
	srv, err := bttest.NewServer(fmt.Sprintf("%s:%d", *host, *port),
		grpc.MaxRecvMsgSize(256<<20), grpc.MaxSendMsgSize(256<<20))
	if err != nil {
		log.Fatalf("failed to start emulator: %v", err)
	}
	fmt.Printf("Cloud Bigtable emulator running on %s\n", srv.Addr)
	select {}
}
