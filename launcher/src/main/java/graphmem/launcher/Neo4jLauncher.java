package graphmem.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.io.ByteUnit;

/**
 * Starts Neo4j (the in-process server of neo4j-harness) for graphmem, with Neo4j Browser at /browser/,
 * a data directory that survives restarts, and auth on. Runs until it receives SIGTERM.
 *
 * <p>Configuration comes from the environment, so that no secret appears on a command line:
 * GRAPHMEM_NEO4J_DATA (data directory, required), GRAPHMEM_NEO4J_PASSWORD (password of user neo4j,
 * required unless auth is off), GRAPHMEM_NEO4J_AUTH (true|false, default true),
 * GRAPHMEM_NEO4J_BOLT_PORT (default 7687), GRAPHMEM_NEO4J_HTTP_PORT (default 7474),
 * GRAPHMEM_NEO4J_PAGE_CACHE (bytes, with k/m/g suffix; default 2g).
 *
 * <p>Bolt stops without Netty's quiet period (5 s for each of its two event loop groups by
 * default), which made every stop take 12 s with no client connected; in-flight work still ends.
 */
public final class Neo4jLauncher {
    private static final String LISTEN_HOST = "127.0.0.1";

    private Neo4jLauncher() {}

    public static void main(String[] args) {
        try {
            run();
        } catch (Exception error) {
            error.printStackTrace();
            System.exit(1);
        }
    }

    private static void run() throws Exception {
        Path dataDir = Path.of(required("GRAPHMEM_NEO4J_DATA")).toAbsolutePath();
        boolean auth = Boolean.parseBoolean(env("GRAPHMEM_NEO4J_AUTH", "true"));
        String password = auth ? required("GRAPHMEM_NEO4J_PASSWORD") : null;
        int boltPort = Integer.parseInt(env("GRAPHMEM_NEO4J_BOLT_PORT", "7687"));
        int httpPort = Integer.parseInt(env("GRAPHMEM_NEO4J_HTTP_PORT", "7474"));
        long pageCache = ByteUnit.parse(env("GRAPHMEM_NEO4J_PAGE_CACHE", "2g"));

        AtomicReference<Neo4j> server = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("graphmem-neo4j: stopping");
            Neo4j running = server.getAndSet(null);
            if (running != null) {
                running.close();
            }
            System.out.println("graphmem-neo4j: stopped");
            stopped.countDown();
        }));

        Files.createDirectories(dataDir.resolve("data"));
        Files.createDirectories(dataDir.resolve("run"));
        Neo4j neo4j = Neo4jBuilders.newInProcessBuilder(dataDir.resolve("run"))
                .withConfig(GraphDatabaseSettings.data_directory, dataDir.resolve("data"))
                .withConfig(GraphDatabaseSettings.pagecache_memory, pageCache)
                .withConfig(GraphDatabaseSettings.auth_enabled, auth)
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress(LISTEN_HOST, boltPort))
                .withConfig(BoltConnector.advertised_address, new SocketAddress(LISTEN_HOST, boltPort))
                .withConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .withConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, Duration.ZERO)
                .withConfig(HttpConnector.enabled, true)
                .withConfig(HttpConnector.listen_address, new SocketAddress(LISTEN_HOST, httpPort))
                .withConfig(HttpConnector.advertised_address, new SocketAddress(LISTEN_HOST, httpPort))
                .build();
        server.set(neo4j);
        if (auth) {
            setPassword(neo4j, password);
        }

        System.out.println("graphmem-neo4j: ready bolt=" + neo4j.boltURI() + " http=" + neo4j.httpURI()
                + " data=" + dataDir.resolve("data") + " auth=" + auth);
        stopped.await();
    }

    /** Sets the password of user neo4j; on a restart it usually is that password already. */
    private static void setPassword(Neo4j neo4j, String password) {
        try {
            neo4j.databaseManagementService()
                    .database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
                    .executeTransactionally(
                            "ALTER USER neo4j IF EXISTS SET PLAINTEXT PASSWORD $password CHANGE NOT REQUIRED",
                            Map.of("password", password));
        } catch (QueryExecutionException error) {
            if (!error.getMessage().contains("Old password and new password cannot be the same")) {
                throw error;
            }
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? fallback : value;
    }

    private static String required(String name) {
        String value = System.getenv(name);
        if (value == null || value.isEmpty()) {
            System.err.println("graphmem-neo4j: environment variable " + name + " is required");
            System.exit(2);
        }
        return value;
    }
}
